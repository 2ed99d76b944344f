//! What a front end holds: the [`RuntimeHandle`] it submits operations through, and how a runtime
//! starts ([`RuntimeConfig`], [`SessionChoice`]) or fails to ([`RuntimeError`]).

use std::sync::Arc;

use tokio::sync::mpsc;
use tunacode_protocol::runtime::Op;
use tunacode_store::StoreError;
use tunacode_tools::{EditorFiles, Tool};

use crate::client_cache::ClientCache;
use crate::settings::RuntimeSettings;

/// Which session a runtime opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionChoice {
    /// A new, empty one.
    New,
    /// A saved one of this project, by id (an error when there is none).
    Resume(String),
    /// This project's most recent one; a new one (with a notice saying so) when nothing is saved.
    ContinueLatest,
}

/// How a runtime starts.
pub struct RuntimeConfig {
    /// The resolved settings.
    pub settings: RuntimeSettings,
    /// The session to open.
    pub session: SessionChoice,
    /// Whether someone can answer questions (approvals, the iteration limit, plans). When not, writes
    /// and commands are refused with [`HEADLESS_DENIAL`](crate::runtime::HEADLESS_DENIAL) and the request stops at the limit.
    pub interactive: bool,
    /// Approve every write and command (and plans) without asking.
    pub yolo: bool,
    /// Start in plan mode.
    pub plan_mode: bool,
    /// Tools beyond the built-in ones (tools known only at run time).
    pub extra_tools: Vec<Arc<dyn Tool>>,
    /// The client cache (tests give one with their own factory; `None`: the real clients).
    pub clients: Option<ClientCache>,
    /// The editor the file tools read and write through (an editor protocol front end), if any.
    pub editor_files: Option<Arc<dyn EditorFiles>>,
}

impl RuntimeConfig {
    /// A config with the defaults: a new session, interactive, not yolo, no extra tools.
    pub fn new(settings: RuntimeSettings) -> Self {
        RuntimeConfig {
            settings,
            session: SessionChoice::New,
            interactive: true,
            yolo: false,
            plan_mode: false,
            extra_tools: Vec::new(),
            clients: None,
            editor_files: None,
        }
    }
}

impl std::fmt::Debug for RuntimeConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeConfig")
            .field("settings", &self.settings)
            .field("session", &self.session)
            .field("interactive", &self.interactive)
            .field("yolo", &self.yolo)
            .finish_non_exhaustive()
    }
}

/// Why a runtime could not start.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The session to open could not be read.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A blocking task failed.
    #[error("internal error: {0}")]
    Internal(String),
}

/// Where front ends submit operations. Cheap to clone; the runtime stops when every handle is dropped.
#[derive(Debug, Clone)]
pub struct RuntimeHandle {
    ops: mpsc::UnboundedSender<Op>,
}

impl RuntimeHandle {
    /// The handle of a runtime that reads `ops`.
    pub(crate) fn new(ops: mpsc::UnboundedSender<Op>) -> Self {
        RuntimeHandle { ops }
    }

    /// Submits an operation. Its effects arrive as events; after the runtime stopped it is ignored.
    pub fn submit(&self, op: Op) {
        let _ = self.ops.send(op);
    }
}

/// The runtime's entry point.
#[derive(Debug)]
pub struct Runtime;
