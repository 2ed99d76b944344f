//! What the UI knows of the runtime: the handle operations go through, and what the runtime's
//! events last said (a request in flight, the queue, the MCP servers, the custom commands, the
//! models).

use std::collections::BTreeMap;

use tunacode_core::runtime::CommandView;
use tunacode_core::{Op, RuntimeHandle};
use tunacode_protocol::runtime::ModelCatalogue;
use tunacode_protocol::{ServerState, ServerStatus};

use crate::app::commands::COMMANDS;
use crate::complete::CommandInfo;

/// The runtime as the UI sees it.
pub struct RuntimeMirror {
    /// Where operations go (absent only in tests that draw without a runtime).
    pub handle: Option<RuntimeHandle>,
    /// Whether a request is in flight (from the runtime's events).
    pub busy: bool,
    /// Messages waiting behind the running request (as the runtime reports).
    pub queued: usize,
    /// The texts of the messages sent while a request ran and not started yet, oldest first (Esc
    /// puts them back in the input).
    pub queued_texts: Vec<String>,
    /// Whether the session on screen is saved (a request ran in it, or it was resumed with history):
    /// what quitting says how to resume.
    pub session_saved: bool,
    /// Whether a session was shown yet (the first is not announced).
    pub session_shown: bool,
    /// A model asked for with `/model`, kept to retry after its key was entered.
    pub pending_model: Option<String>,
    /// The MCP servers' last reported statuses, by name.
    pub mcp_servers: BTreeMap<String, ServerStatus>,
    /// The custom slash commands the runtime found.
    pub custom_commands: Vec<CommandView>,
    /// Known models.
    pub catalogue: ModelCatalogue,
    /// `/budget` asked: the next budget event is shown in the transcript.
    pub budget_asked: bool,
    /// `/rewind` or Esc Esc asked: the next prompt list opens the rewind picker.
    pub rewind_asked: bool,
    /// When Esc was last pressed with nothing running (a second one soon after opens rewind).
    pub last_esc: Option<std::time::Instant>,
    /// A rewind or fork was asked for: the session it opens again is not announced as resumed.
    pub quiet_reopen: bool,
}

impl RuntimeMirror {
    /// A mirror of a runtime not connected yet, knowing the models of `catalogue`.
    pub fn new(catalogue: ModelCatalogue) -> Self {
        RuntimeMirror {
            handle: None,
            busy: false,
            queued: 0,
            queued_texts: Vec::new(),
            session_saved: false,
            session_shown: false,
            pending_model: None,
            mcp_servers: BTreeMap::new(),
            rewind_asked: false,
            last_esc: None,
            quiet_reopen: false,
            custom_commands: Vec::new(),
            budget_asked: false,
            catalogue,
        }
    }

    /// Submits an operation to the runtime.
    pub fn submit(&self, op: Op) {
        if let Some(runtime) = &self.handle {
            runtime.submit(op);
        }
    }

    /// Keeps a server's reported status. Returns why it failed when it newly did (to be said once).
    pub fn record_mcp(&mut self, status: ServerStatus) -> Option<String> {
        let newly_failed = match &status.state {
            ServerState::Failed(reason) => self
                .mcp_servers
                .get(&status.name)
                .is_none_or(|old| old.state != status.state)
                .then(|| reason.clone()),
            _ => None,
        };
        self.mcp_servers.insert(status.name.clone(), status);
        newly_failed
    }

    /// Whether the runtime found a custom command called `name`.
    pub fn is_custom_command(&self, name: &str) -> bool {
        self.custom_commands.iter().any(|c| c.name == name)
    }

    /// The custom commands as completion and `/help` list them.
    pub fn custom_command_infos(&self) -> Vec<CommandInfo> {
        self.custom_commands
            .iter()
            .map(|c| CommandInfo {
                name: c.name.clone().into(),
                args: "[args]".into(),
                description: c.description.clone().into(),
            })
            .collect()
    }

    /// Every command completion offers: the built-in ones, then the custom ones.
    pub fn all_commands(&self) -> Vec<CommandInfo> {
        let mut all = COMMANDS.to_vec();
        all.extend(self.custom_command_infos());
        all
    }
}
