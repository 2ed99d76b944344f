//! The user's `!` command: run like `bash` in the workspace, its output shown to the user only, stopped
//! by an interrupt. [`UserShell`] is the handler of this operation family and holds only its own
//! state: the token that stops the running command.

use std::sync::Arc;

use serde_json::json;
use tokio_util::sync::CancellationToken;
use tunacode_tools::{Bash, Tool, ToolContext, Workspace};

use crate::agent::Agent;
use crate::events::EventSink;
use crate::runtime::events::RuntimeEvent;

/// Runs the user's `!` commands.
#[derive(Debug, Default)]
pub(super) struct UserShell {
    /// Stops the running command (a fresh one after each stop).
    stop: CancellationToken,
}

impl UserShell {
    /// Runs `command` for the user (not the agent's: no approval, no sandbox, the user's
    /// environment) in `agent`'s workspace; its output streams as `ShellOutput`, then
    /// `ShellFinished`.
    pub(super) fn run(&mut self, command: String, agent: &Arc<Agent>, events: &EventSink) {
        if command.trim().is_empty() {
            return;
        }
        if self.stop.is_cancelled() {
            self.stop = CancellationToken::new();
        }
        let ctx = self.context(&command, agent.workspace(), events);
        let events = events.clone();
        let snapshots = agent.checkpoints.as_ref().map(|store| store.turn_lock());
        tokio::spawn(async move {
            // The last turn's snapshot, if it still finishes in the background, ends first: the
            // sandbox's after-check would take the store's changes for the command's.
            if let Some(lock) = snapshots {
                drop(lock.lock().await);
            }
            let args = json!({"command": command, "timeout": 600});
            let output = match args.as_object() {
                Some(map) => match Bash::default().call(map.clone(), &ctx).await {
                    Ok(out) => out.content,
                    Err(e) => format!("error: {e}"),
                },
                None => String::new(),
            };
            events.send(RuntimeEvent::ShellFinished { command, output });
        });
    }

    /// Stops the running command, if any.
    pub(super) fn stop(&self) {
        self.stop.cancel();
    }

    /// The command's context: the workspace, this shell's stop token, its output forwarded live.
    fn context(&self, command: &str, workspace: &Workspace, events: &EventSink) -> ToolContext {
        let live = {
            let (events, command) = (events.clone(), command.to_string());
            tunacode_tools::ToolOutputSink::new(move |_, text| {
                events.send(RuntimeEvent::ShellOutput {
                    command: command.clone(),
                    text: text.to_string(),
                });
            })
        };
        ToolContext {
            workspace: workspace.clone(),
            cancel: self.stop.clone(),
            // The user's own `!` command runs as in their shell: no sandbox, their environment.
            exec: Default::default(),
            output: Some(live),
            call_id: String::new(),
        }
    }
}
