//! `tunacode checks [approve]`, `tunacode hooks [approve]` and `tunacode agents [approve]`: the
//! checks (hooks, agent types) in force here (the config's and the project's approved files), and
//! the approval of the project's `.tunacode/checks.json` (`hooks.json`, `agents/`) as it is now.

use std::io::Write;

use tunacode_protocol::runtime::ProjectFileKind;

use crate::args::{ProjectFileAction, ProjectFileArgs};

/// Runs `tunacode checks …` or `tunacode hooks …`; the exit code.
pub async fn run(kind: ProjectFileKind, args: ProjectFileArgs) -> anyhow::Result<u8> {
    let paths = tunacode_store::Paths::from_env()?;
    let cwd = crate::sessions_cmd::project_dir(args.cwd)?;
    let approve = args.action == Some(ProjectFileAction::Approve);
    let text = tokio::task::spawn_blocking(move || {
        use tunacode_core::{checks, hooks, subagents};
        match (kind, approve) {
            (ProjectFileKind::Checks, true) => checks::approve_project_checks(&paths, &cwd, None),
            (ProjectFileKind::Checks, false) => checks::describe_checks(&paths, &cwd),
            (ProjectFileKind::Hooks, true) => hooks::approve_project_hooks(&paths, &cwd, None),
            (ProjectFileKind::Hooks, false) => hooks::describe_hooks(&paths, &cwd),
            (ProjectFileKind::Agents, true) => {
                subagents::approve_project_agents(&paths, &cwd, None)
            }
            (ProjectFileKind::Agents, false) => subagents::describe_agents(&paths, &cwd),
        }
    })
    .await??;
    say(text.trim_end());
    Ok(0)
}

#[allow(clippy::print_stdout)]
fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
}
