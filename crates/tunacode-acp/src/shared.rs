//! What the connection shares with its handlers and sessions: the options it serves with, what the
//! client offers, and the open sessions.

use std::sync::Mutex;

use tokio::sync::mpsc;
use tunacode_core::{Paths, SettingsFlags};

use crate::command::{Command, session_not_found};
use crate::open_sessions::OpenSessions;

/// How `tunacode acp` runs: where its files are and the model flags (`--model`, `--base-url`, …) that
/// every session resolves its settings with (the session's `cwd` comes from the editor).
pub struct AcpOptions {
    /// TunaCode's files.
    pub paths: Paths,
    /// The flags given on the command line.
    pub flags: SettingsFlags,
}

/// What the client said it can do in `initialize`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ClientOffers {
    /// It reads files for us (`fs/read_text_file`).
    pub(crate) reads: bool,
    /// It writes files for us (`fs/write_text_file`).
    pub(crate) writes: bool,
    /// It shows notices (`session.notices`).
    pub(crate) notices: bool,
    /// It reviews edits hunk by hunk (`_meta`, see `hunks.rs`).
    pub(crate) hunks: bool,
}

/// What the connection shares with its handlers and sessions.
pub(crate) struct Server {
    pub(crate) options: AcpOptions,
    /// What the client offers (from `initialize`).
    pub(crate) client: Mutex<ClientOffers>,
    /// The open sessions.
    pub(crate) sessions: OpenSessions,
}

impl Server {
    /// What the client offers.
    pub(crate) fn client(&self) -> ClientOffers {
        *self
            .client
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The session `id`'s command queue, when it is open.
    pub(crate) fn session(&self, id: &str) -> Option<mpsc::UnboundedSender<Command>> {
        self.sessions.queue(id)
    }

    /// Hands `command` to the session `id`, or answers that it is not open.
    pub(crate) fn route(
        &self,
        id: &str,
        command: Command,
    ) -> Result<(), agent_client_protocol::Error> {
        match self.session(id) {
            Some(queue) => match queue.send(command) {
                Ok(()) => Ok(()),
                Err(mpsc::error::SendError(command)) => command.refuse(session_not_found(id)),
            },
            None => command.refuse(session_not_found(id)),
        }
    }
}
