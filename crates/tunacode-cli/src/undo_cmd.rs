//! `tunacode undo [--session ID] [--to N] [--list]`: puts the workspace back as it was before a
//! request of a session (the project's newest by default) changed it, and says what it restored.

use std::io::Write;

use anyhow::bail;
use tunacode_core::checkpoints::Checkpoints;
use tunacode_store::{Paths, SessionStore, project_id};

use crate::args::UndoArgs;

/// Runs `tunacode undo`; the exit code.
pub async fn run(args: UndoArgs) -> anyhow::Result<u8> {
    let paths = Paths::from_env()?;
    let cwd = crate::sessions_cmd::project_dir(args.cwd)?;
    let session = match args.session {
        Some(id) => id,
        None => newest_session(&paths, &cwd)?,
    };
    let store = Checkpoints::new(&paths.data_dir(), &cwd);
    let to = args.to.unwrap_or(1).max(1);
    let list_only = args.list;
    let text = tokio::task::spawn_blocking(move || -> anyhow::Result<String> {
        if list_only {
            let list = store.list(&session)?;
            if list.is_empty() {
                return Ok(format!("session {session} has no checkpoint"));
            }
            let lines: Vec<String> = list
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    format!(
                        "{:>3}  before request {}  ({})",
                        i + 1,
                        c.request_id,
                        when(c.time)
                    )
                })
                .collect();
            return Ok(format!(
                "checkpoints of session {session}, newest first (undo --to N):\n{}",
                lines.join("\n")
            ));
        }
        let (checkpoint, restored) = store.undo(&session, to)?;
        let undone = tunacode_protocol::runtime::Undone {
            request_id: checkpoint.request_id,
            files: restored
                .into_iter()
                .map(|r| tunacode_protocol::runtime::UndoneFile {
                    path: r.path,
                    action: r.how.to_string(),
                })
                .collect(),
        };
        Ok(undone.describe())
    })
    .await??;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    Ok(0)
}

fn newest_session(paths: &Paths, cwd: &std::path::Path) -> anyhow::Result<String> {
    let store = SessionStore::new(&paths.sessions_dir);
    let (sessions, _) = store.list(&project_id(cwd))?;
    match sessions.first() {
        Some(newest) => Ok(newest.session_id.clone()),
        None => bail!("no saved session in {}: nothing to undo", cwd.display()),
    }
}

fn when(seconds: i64) -> String {
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds.max(0) as u64);
    humantime::format_rfc3339_seconds(time).to_string()
}
