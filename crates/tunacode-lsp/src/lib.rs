//! TunaCode's language-server client (on `async-lsp` and `lsp-types`): a server the caller spawned
//! (its launch, in the sandbox, is the caller's) spoken to over stdio, documents kept in sync, and
//! the diagnostics it publishes after an edit waited for, a bounded time, with the errors that are
//! new told apart from those that were there.

mod client;
mod diagnostics;
mod error;

pub use client::LspClient;
pub use diagnostics::{Diagnostic, Severity, new_errors};
pub use error::LspError;
