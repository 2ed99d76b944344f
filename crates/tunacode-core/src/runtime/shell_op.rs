//! The user's `!` command: run like `bash` in the workspace, its output shown to the user only, stopped
//! by an interrupt.

use serde_json::json;
use tokio_util::sync::CancellationToken;
use tunacode_tools::{Bash, Tool, ToolContext};

use crate::runtime::actor::Actor;
use crate::runtime::events::RuntimeEvent;

impl Actor {
    /// Runs the user's `!` command (not the agent's: no approval, no sandbox, the user's environment).
    pub(super) fn on_shell(&mut self, command: String) {
        if command.trim().is_empty() {
            return;
        }
        if self.shell.is_cancelled() {
            self.shell = CancellationToken::new();
        }
        let events = self.parts.events.clone();
        let live = {
            let (events, command) = (events.clone(), command.clone());
            tunacode_tools::ToolOutputSink::new(move |_, text| {
                events.send(RuntimeEvent::ShellOutput {
                    command: command.clone(),
                    text: text.to_string(),
                });
            })
        };
        let ctx = ToolContext {
            workspace: self.agent.workspace().clone(),
            cancel: self.shell.clone(),
            // The user's own `!` command runs as in their shell: no sandbox, their environment.
            exec: Default::default(),
            output: Some(live),
        };
        tokio::spawn(async move {
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
}
