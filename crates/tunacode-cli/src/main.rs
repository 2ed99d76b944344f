//! `tunacode`: the TunaCode binary. `tunacode run "task"` runs the agent headless; `tunacode sessions`
//! lists this project's sessions.

mod acp_cmd;
mod approval_prompt;
mod args;
mod check_lines;
mod context_cmd;
mod docs_cmd;
mod input;
mod logging;
mod mcp_cmd;
mod models_cmd;
mod output;
mod project_files_cmd;
mod run_cmd;
mod sessions_cmd;
mod tool_lines;
mod tree_args;
mod tree_cmd;
mod tui_cmd;

use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command};
use tunacode_protocol::runtime::ProjectFileKind;

fn main() -> ExitCode {
    // Not dumpable: other processes of the user (and commands, whatever the sandbox) cannot read the
    // agent's memory or `/proc/<pid>/environ`, where provider keys are; no core dump holds them.
    let _ = nix::sys::prctl::set_dumpable(false);
    let mut cli = Cli::parse();
    // A headless run has no screen to keep responsive: its tasks share one thread, so the events of
    // a turn pass between them without waking another thread (blocking work still has its pool).
    let mut builder = match cli.command {
        Some(Command::Run(_)) => tokio::runtime::Builder::new_current_thread(),
        _ => tokio::runtime::Builder::new_multi_thread(),
    };
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return fail(&anyhow::anyhow!("cannot start the async runtime: {e}")),
    };
    let result = runtime.block_on(async {
        // Past a file-size limit (`ulimit -f`) a write must fail with an error the user sees, not
        // kill the process (SIGXFSZ's default): a failed save then keeps the previous file.
        let _file_size_limit = tokio::signal::unix::signal(
            tokio::signal::unix::SignalKind::from_raw(nix::sys::signal::Signal::SIGXFSZ as i32),
        );
        match cli.command.take() {
            Some(Command::Run(args)) => run_cmd::run(args).await,
            Some(Command::Acp(args)) => acp_cmd::run(args).await,
            Some(Command::Sessions(args)) => sessions_cmd::run(args),
            Some(Command::Models(args)) => models_cmd::run(args).await,
            Some(Command::Mcp(args)) => mcp_cmd::run(args).await,
            Some(Command::Checks(args)) => {
                project_files_cmd::run(ProjectFileKind::Checks, args).await
            }
            Some(Command::Hooks(args)) => {
                project_files_cmd::run(ProjectFileKind::Hooks, args).await
            }
            Some(Command::Agents(args)) => {
                project_files_cmd::run(ProjectFileKind::Agents, args).await
            }
            Some(Command::Undo(args)) => tree_cmd::undo(args).await,
            Some(Command::Rewind(args)) => tree_cmd::rewind(args).await,
            Some(Command::Redo(args)) => tree_cmd::redo(args).await,
            Some(Command::Fork(args)) => tree_cmd::fork(args).await,
            Some(Command::Export(args)) => tree_cmd::export(args).await,
            Some(Command::Import(args)) => tree_cmd::import(args).await,
            Some(Command::Context(args)) => context_cmd::run(args).await,
            Some(Command::Completions { shell }) => docs_cmd::completions(shell),
            Some(Command::Man) => docs_cmd::man(),
            Some(Command::Schema) => docs_cmd::schema(),
            None => tui_cmd::run(cli).await,
        }
    });
    // A terminal prompt may still be blocked reading /dev/tty after Ctrl+C: do not wait for it.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => fail(&e),
    }
}

#[allow(clippy::print_stderr)]
fn fail(err: &anyhow::Error) -> ExitCode {
    // `tunacode models | head -1`: a reader that stopped reading is not an error.
    let broken_pipe = err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    });
    if broken_pipe {
        return ExitCode::SUCCESS;
    }
    eprintln!("tunacode: error: {err:#}");
    if err.downcast_ref::<output::UsageError>().is_some() {
        return ExitCode::from(output::EXIT_USAGE);
    }
    ExitCode::from(run_cmd::EXIT_ERROR)
}
