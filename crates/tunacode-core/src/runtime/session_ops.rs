//! The runtime's session and model operations: switching models, new and resumed sessions, listing
//! them, and announcing the session the front ends now show.

use std::sync::Arc;

use crate::runtime::actor::Actor;
use crate::runtime::events::{
    ModelView, OpFailure, RuntimeEvent, SessionNotice, SessionView, settings_failure, store_failure,
};
use crate::runtime::sessions;
use crate::session::Session;

impl Actor {
    pub(super) async fn on_set_model(&mut self, model: String) {
        if self.busy("switch models") {
            return;
        }
        let settings = self.parts.settings.clone();
        let resolved = tokio::task::spawn_blocking(move || settings.for_model(&model)).await;
        match resolved {
            Ok(Ok(model)) => {
                self.agent = Arc::new(
                    self.agent
                        .with_model(model.options.clone(), model.provider.clone()),
                );
                self.parts.model = model;
                self.parts
                    .events
                    .send(RuntimeEvent::ModelChanged(self.model_view()));
            }
            Ok(Err(e)) => self.fail(settings_failure(e)),
            Err(e) => {
                tracing::error!(error = %e, "resolving a model");
                self.fail(OpFailure::Invalid(format!("internal error: {e}")));
            }
        }
    }

    pub(super) fn on_new_session(&mut self) {
        if self.busy("start a new session") {
            return;
        }
        let session = Session::new(&self.parts.settings.cwd, &self.parts.model.options.model);
        self.install_session(session, false, None);
    }

    pub(super) async fn on_resume(&mut self, id: String) {
        if self.busy("resume a session") {
            return;
        }
        let (store, cwd) = (self.parts.store.clone(), self.parts.settings.cwd.clone());
        let model = self.parts.model.options.model.clone();
        let choice = crate::runtime::handle::SessionChoice::Resume(id);
        let opened =
            tokio::task::spawn_blocking(move || sessions::open(&store, &cwd, &model, &choice))
                .await;
        match opened {
            Ok(Ok(opened)) => self.install_session(opened.session, true, opened.notice),
            Ok(Err(e)) => self.fail(store_failure(e)),
            Err(e) => {
                tracing::error!(error = %e, "resuming a session");
                self.fail(OpFailure::Invalid(format!("internal error: {e}")));
            }
        }
    }

    pub(super) fn on_list_sessions(&self) {
        let (store, cwd, events) = (
            self.parts.store.clone(),
            self.parts.settings.cwd.clone(),
            self.parts.events.clone(),
        );
        tokio::task::spawn_blocking(move || match sessions::list(&store, &cwd) {
            Ok((sessions, unreadable)) => events.send(RuntimeEvent::SessionList {
                sessions,
                unreadable,
            }),
            Err(e) => events.send(RuntimeEvent::OpFailed(store_failure(e))),
        });
    }

    /// Makes `session` the current one (a fresh engine over it) and announces it.
    pub(super) fn install_session(
        &mut self,
        session: Session,
        resumed: bool,
        notice: Option<SessionNotice>,
    ) {
        self.agent = Arc::new(self.parts.engine(session));
        self.parts.policy.reset_session();
        self.announce_session(resumed, notice);
    }

    pub(super) fn announce_session(&self, resumed: bool, notice: Option<SessionNotice>) {
        let view = self.session_view(resumed, notice);
        self.parts
            .events
            .send(RuntimeEvent::SessionOpened(Box::new(view)));
    }

    pub(super) fn model_view(&self) -> ModelView {
        ModelView {
            model: self.parts.model.options.model.clone(),
            context_window: self.parts.model.context_window,
        }
    }

    pub(super) fn session_view(&self, resumed: bool, notice: Option<SessionNotice>) -> SessionView {
        let s = self.agent.session().lock();
        SessionView {
            session_id: s.id.clone(),
            workspace: self.parts.settings.cwd.clone(),
            messages: s.messages.clone(),
            model: self.model_view(),
            plan_mode: s.plan_mode,
            usage: s.usage.session_total,
            todos: s.todos.items(),
            resumed,
            notice,
        }
    }
}
