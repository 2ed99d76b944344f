//! `tunacode checks [approve]`: the checks that prove a change here (the config's and an approved
//! `.tunacode/checks.json`), and the approval of that file as it is now.

use std::io::Write;

use crate::args::ChecksArgs;

/// Runs `tunacode checks …`; the exit code.
pub async fn run(args: ChecksArgs) -> anyhow::Result<u8> {
    let paths = tunacode_store::Paths::from_env()?;
    let cwd = crate::sessions_cmd::project_dir(args.cwd)?;
    let approve = args.action == Some(crate::args::ChecksAction::Approve);
    let text = tokio::task::spawn_blocking(move || match approve {
        true => tunacode_core::checks::approve_project_checks(&paths, &cwd),
        false => tunacode_core::checks::describe_checks(&paths, &cwd),
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
