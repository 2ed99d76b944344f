//! Built-in tools of TunaCode (seed 003's nine): `read_file`, `write_file`, `update_file`, `bash`,
//! `run_command`, `grep`, `glob`, `list_dir`, `todo`. Each implements [`Tool`]; every path is resolved
//! through the [`Workspace`] guard.
//!
//! Concurrency policy lives in the engine (tunacode-core): tools only declare their [`ToolKind`].

mod args;
mod beneath;
mod diff;
mod editor;
mod exec;
mod fsutil;
mod live;
pub mod process_guard;
mod protected;
mod resolve;
mod restore;
mod sandbox;
mod schema;
mod secrets;
pub mod shell;
#[cfg(test)]
mod testutil;
mod tool;
mod tool_error;
mod tools;
mod toolset;
mod truncate;
mod workspace;

pub use diff::unified_diff;
pub use editor::EditorFiles;
pub use exec::{ExecPolicy, asks_outside_sandbox};
pub use live::ToolOutputSink;
pub use protected::ProtectedPaths;
pub use restore::{read_workspace_file, restore_workspace_file};
pub use sandbox::{
    Guard, PreparedSandbox, SandboxError, SandboxMode, SandboxPolicy, SandboxSupport,
    landlock_available, sandbox_support,
};
pub use schema::provider_schema;
pub use secrets::{HOME_SECRETS, SecretPaths, is_secret_file_name};
pub use tool::{ImageAttachment, Tool, ToolContext, ToolKind, ToolOutput, ToolSource};
pub use tool_error::ToolError;
pub use tools::{
    ApplyPatch, Bash, CommandRun, Glob, Grep, InputRun, ListDir, ReadFile, RunCommand, Todo,
    TodoList, UpdateFile, WebFetch, WriteFile, patch_paths, run_shell, run_with_input,
    spawn_server, url_host,
};
pub use toolset::ToolSet;
pub use workspace::{Located, Workspace, resolve_lexically};
