//! Custom slash commands in the runtime: a message `/name args` for one of the project's or user's
//! commands is sent as the command's expanded text, with the command's own model when it names one
//! (for that request only); the front ends learn the commands when the runtime opens.

use std::sync::Arc;

use crate::agent::Agent;
use crate::custom_commands::match_command;
use crate::runtime::actor::Actor;
use crate::runtime::events::{CommandView, OpFailure, RuntimeEvent, settings_failure};

impl Actor {
    /// Tells the front ends which custom commands there are.
    pub(super) fn announce_commands(&self) {
        let commands = self
            .parts
            .settings
            .commands
            .iter()
            .map(|c| CommandView {
                name: c.name.clone(),
                description: c.description.clone(),
            })
            .collect();
        self.parts
            .events
            .send(RuntimeEvent::CustomCommands(commands));
    }

    /// The engine and the message for a typed line: the session's engine and the line itself, or for a
    /// custom command its expansion (on its model). `None` when the command's model cannot be used
    /// (said as an `OpFailed`).
    pub(super) async fn command_request(&mut self, text: &str) -> Option<(Arc<Agent>, String)> {
        let Some((command, args)) = match_command(&self.parts.settings.commands, text) else {
            return Some((self.agent.clone(), text.to_string()));
        };
        let message = command.expand(&args);
        let Some(model) = command.model.clone() else {
            return Some((self.agent.clone(), message));
        };
        let settings = self.parts.settings.clone();
        match tokio::task::spawn_blocking(move || settings.for_model(&model)).await {
            Ok(Ok(resolved)) => Some((
                Arc::new(self.agent.with_model(resolved.options, resolved.provider)),
                message,
            )),
            Ok(Err(e)) => {
                self.fail(settings_failure(e));
                None
            }
            Err(e) => {
                self.fail(OpFailure::Invalid(format!("internal error: {e}")));
                None
            }
        }
    }
}
