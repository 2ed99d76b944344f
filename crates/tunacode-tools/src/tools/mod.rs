//! One module per built-in tool, and the list of them.

use std::sync::Arc;

use crate::tool::Tool;

mod apply_patch;
mod bash;
mod glob;
mod grep;
mod list_dir;
pub(crate) mod process;
mod read_file;
mod run_command;
mod server_spawn;
mod shell_run;
mod todo;
mod update_file;
mod web_fetch;
mod write_file;

pub use apply_patch::{ApplyPatch, patch_paths};
pub use bash::Bash;
pub use glob::Glob;
pub use grep::Grep;
pub use list_dir::ListDir;
pub use read_file::ReadFile;
pub use run_command::RunCommand;
pub use server_spawn::spawn_server;
pub use shell_run::{CommandRun, InputRun, run_shell, run_with_input};
pub use todo::{Todo, TodoList};
pub use update_file::UpdateFile;
pub use web_fetch::{WebFetch, url_host};
pub use write_file::WriteFile;

/// Every built-in tool, in the order offered to the model; `todo` works on `todos`.
pub(crate) fn builtin_tools(todos: &TodoList) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(ReadFile),
        Arc::new(WriteFile),
        Arc::new(UpdateFile),
        Arc::new(ApplyPatch),
        Arc::new(Bash::default()),
        Arc::new(RunCommand),
        Arc::new(Grep::default()),
        Arc::new(Glob),
        Arc::new(ListDir),
        Arc::new(Todo::new(todos.clone())),
    ]
}

#[cfg(test)]
mod editor_tests;
#[cfg(test)]
mod hunk_pick_tests;
