//! `tunacode acp`: TunaCode inside editors. It serves the Agent Client Protocol (v1) over stdio, one
//! JSON-RPC message a line, with the `agent-client-protocol` crate, as the third front end over the
//! core's runtime: each ACP session is one [`tunacode_core::Runtime`]; requests become operations and
//! the runtime's events become `session/update` notifications. Approvals are asked with
//! `session/request_permission`; when the editor offers `fs/*`, the file tools read and write through
//! it (its unsaved buffers). Nothing here decides policy: the runtime does.

mod checks;
mod client_fs;
mod command;
mod diffs;
mod fork;
mod hunks;
mod in_flight;
mod modes;
mod open_sessions;
mod prompt;
mod questions;
mod replay;
mod server;
mod session;
mod session_tree;
mod setup;
mod shared;
mod subagents;
mod tool_calls;
mod turns;
mod updates;

pub use server::{AcpError, serve, serve_on};
pub use shared::AcpOptions;
