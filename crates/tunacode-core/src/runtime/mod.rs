//! The conversation runtime: the one place where the engine is assembled and driven. It is built from
//! [`RuntimeSettings`] and owns the session (new, resumed, continued; model switches; clearing), the
//! session store, the client cache, the tool registry and the approval [`Policy`](policy). Front ends
//! (the TUI, `tunacode run`, the editor protocol) submit [`Op`]s through a [`RuntimeHandle`] and render
//! the [`RuntimeEvent`]s it sends back, in the style of codex-rs's submission/event queues.

mod actor;
mod blocking;
mod budget_ops;
mod config_ops;
mod custom_ops;
mod directory;
mod events;
mod family_routes;
mod handle;
mod launch;
mod launch_options;
mod mcp_ops;
mod ops;
mod parts;
mod policy;
mod project_file_ops;
mod project_refresh;
mod protected;
mod questions;
mod request_start;
mod requests;
mod rewind_ops;
mod rewind_routes;
mod sandbox;
mod sandbox_setup;
pub mod scope;
mod session_hooks;
mod session_ops;
pub(crate) mod sessions;
mod setup_phase;
mod shell_op;

pub use events::{
    ApprovalQuestion, CommandView, JournalRecovery, ListedSession, ModelView, OpFailure, Question,
    QuestionKind, RequestEnd, RequestFailure, RuntimeEvent, SessionNotice, SessionView, UndoneFile,
    request_failure, settings_failure, store_failure,
};
pub use launch::LaunchError;
pub use launch_options::{LaunchOptions, SetupMode};
pub use ops::{Answer, ApprovalAnswer, Op};
pub use policy::HEADLESS_DENIAL;
pub use scope::SessionScope;

pub use handle::{Runtime, RuntimeConfig, RuntimeError, RuntimeHandle, SessionChoice};
