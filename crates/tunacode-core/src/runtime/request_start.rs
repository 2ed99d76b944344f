//! Starting a request and reporting its end: the typed line becomes the message the engine runs
//! (a custom command expanded, `@path` mentions and handed-over files attached, images loaded, all
//! read off the async threads), and a request that ended (or panicked) is reported with its usage.

use tokio::task::JoinError;
use tokio_util::sync::CancellationToken;
use tunacode_protocol::AgentEvent;

use crate::error::RequestError;
use crate::mentions::{attach, expand_mentions};
use crate::runtime::actor::Actor;
use crate::runtime::custom_ops;
use crate::runtime::events::{RequestEnd, RuntimeEvent, request_failure};
use crate::runtime::requests::{Joined, Message, Running};

impl Actor {
    /// Starts a request: `@path` mentions are attached (read off the async threads), then the files
    /// handed over with the message, then the engine runs it.
    pub(super) async fn start_request(&mut self, message: Message) {
        let Message {
            text,
            attachments,
            images,
        } = message;
        self.refresh_project_files().await;
        // A custom command runs as its expanded message, on its own model when it names one.
        let commanded = custom_ops::command_request(&self.parts.settings, &self.agent, &text).await;
        let (agent, message) = match commanded {
            Ok(commanded) => commanded,
            Err(failure) => return self.fail(failure),
        };
        let events = self.parts.events.clone();
        let cancel = CancellationToken::new();
        let token = cancel.clone();
        let task = tokio::spawn(async move {
            let workspace = agent.workspace().clone();
            let (mut expanded, given) = tokio::task::spawn_blocking(move || {
                let given = crate::prompt_images::load_images(&images, &workspace);
                (expand_mentions(&message, &workspace), given)
            })
            .await
            .map_err(|e| RequestError::Internal(e.to_string()))?;
            attach(&mut expanded, &attachments);
            let mut pictures = std::mem::take(&mut expanded.images);
            pictures.extend(given.map_err(RequestError::Images)?);
            let mut attached = expanded.attached;
            for picture in &pictures {
                if !attached.contains(&picture.name) {
                    attached.push(picture.name.clone());
                }
            }
            events.send(RuntimeEvent::UserMessage {
                text: text.clone(),
                attached,
            });
            agent
                .process_prompt_with_images(&text, &expanded.text, pictures, token)
                .await
        });
        self.requests.started(Running { cancel, task });
    }

    /// Reports how a request ended. A request that panicked is reported as an internal error; the
    /// session keeps what it had before the request.
    pub(super) fn request_ended(&mut self, joined: Joined) {
        let outcome = match joined {
            Ok(outcome) => outcome,
            Err(e) => {
                let message = panic_text(e);
                tracing::error!(%message, "a request panicked");
                self.parts.events.emit(AgentEvent::RequestFailed {
                    kind: "internal".into(),
                    message: format!("internal error (the session is kept): {message}"),
                });
                Err(RequestError::Internal(message))
            }
        };
        let (request_id, session_id, usage) = {
            let s = self.agent.session().lock();
            (
                s.runtime.request_id.clone(),
                s.id.clone(),
                s.usage.session_total,
            )
        };
        if let (Err(e), Some(var)) = (&outcome, &self.parts.model.provider.key_hint)
            && e.kind() == "auth"
        {
            self.parts.events.send(RuntimeEvent::KeyRejected {
                provider: self.parts.model.provider.provider.clone(),
                var: var.clone(),
                from_env: std::env::var_os(var).is_some(),
            });
        }
        self.parts
            .events
            .send(RuntimeEvent::RequestEnded(Box::new(RequestEnd {
                request_id,
                session_id,
                model: self.parts.model.options.model.clone(),
                outcome: outcome.map_err(|e| request_failure(&e)),
                usage,
            })));
    }
}

/// What a failed task said.
fn panic_text(err: JoinError) -> String {
    if !err.is_panic() {
        return err.to_string();
    }
    let payload = err.into_panic();
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}
