//! `tunacode undo | rewind | redo | fork | export | import`: the session's tree from scripts. They
//! never prompt: a file the user changed since the agent left it is kept and named in the output.
//! A rewind continues the same session (`tunacode run --session ID` picks it up).

use std::io::Write;

use tunacode_core::saved_sessions::SavedSessions;
use tunacode_protocol::runtime::{ExportFormat, RewindMode, TurnView};
use tunacode_store::{Paths, RewindConfig};

use crate::tree_args::{
    ExportArgs, ForkArgs, FormatArg, ImportArgs, ModeArg, RedoArgs, RewindArgs, UndoArgs,
};

/// The project's saved sessions, with the user's rewind bounds (defaults when the config cannot
/// be read: the commands still work).
fn saved(cwd: Option<std::path::PathBuf>) -> anyhow::Result<SavedSessions> {
    let paths = Paths::from_env()?;
    let cwd = crate::sessions_cmd::project_dir(cwd)?;
    let limits = tunacode_store::UserConfig::load(&paths.config_file)
        .map(|c| c.settings.rewind)
        .unwrap_or_else(|_| RewindConfig::default());
    Ok(SavedSessions::new(&paths, &cwd, limits))
}

/// Runs `work` on a blocking thread; prints its text.
async fn blocking(
    work: impl FnOnce() -> anyhow::Result<String> + Send + 'static,
) -> anyhow::Result<u8> {
    let text = tokio::task::spawn_blocking(work).await??;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", text.trim_end())?;
    Ok(0)
}

/// `tunacode undo`.
pub async fn undo(args: UndoArgs) -> anyhow::Result<u8> {
    let saved = saved(args.cwd)?;
    blocking(move || {
        let id = saved.resolve(args.session.as_deref())?;
        if args.list {
            return Ok(turns_text(&id, &saved.turns(&id)?));
        }
        Ok(saved.undo(&id, args.to.unwrap_or(1).max(1))?.describe())
    })
    .await
}

/// `tunacode rewind`.
pub async fn rewind(args: RewindArgs) -> anyhow::Result<u8> {
    let saved = saved(args.cwd)?;
    let mode = match args.mode {
        ModeArg::All => RewindMode::All,
        ModeArg::Conversation => RewindMode::Conversation,
        ModeArg::Code => RewindMode::Code,
    };
    blocking(move || {
        let id = saved.resolve(args.session.as_deref())?;
        match args.to {
            Some(to) if !args.list => Ok(saved.rewind(&id, to, mode)?.describe()),
            _ => Ok(turns_text(&id, &saved.turns(&id)?)),
        }
    })
    .await
}

/// `tunacode redo`.
pub async fn redo(args: RedoArgs) -> anyhow::Result<u8> {
    let saved = saved(args.cwd)?;
    blocking(move || {
        let id = saved.resolve(args.session.as_deref())?;
        Ok(saved.redo(&id)?.describe())
    })
    .await
}

/// `tunacode fork`: prints the new session's id.
pub async fn fork(args: ForkArgs) -> anyhow::Result<u8> {
    let saved = saved(args.cwd)?;
    blocking(move || {
        let id = saved.resolve(args.session.as_deref())?;
        let forked = saved.fork(&id, args.at)?;
        Ok(format!(
            "{}\nforked from {} after prompt {} (the original is unchanged)",
            forked.session_id, forked.parent, forked.prompt
        ))
    })
    .await
}

/// `tunacode export`: to stdout, or to a private file.
pub async fn export(args: ExportArgs) -> anyhow::Result<u8> {
    let saved = saved(args.cwd)?;
    let format = match args.format {
        FormatArg::Md => ExportFormat::Md,
        FormatArg::Json => ExportFormat::Json,
        FormatArg::Html => ExportFormat::Html,
    };
    let text = tokio::task::spawn_blocking(move || -> anyhow::Result<String> {
        let id = saved.resolve(args.session.as_deref())?;
        let text = saved.export(&id, format)?;
        if let Some(path) = &args.output {
            tunacode_core::rewind::write_private_file(path, text.as_bytes())?;
            return Ok(String::new());
        }
        Ok(text)
    })
    .await??;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    Ok(0)
}

/// `tunacode import`: prints the new session's id.
pub async fn import(args: ImportArgs) -> anyhow::Result<u8> {
    let saved = saved(args.cwd)?;
    blocking(move || Ok(saved.import(&args.file)?)).await
}

/// The prompts of a session, one a line, with the files each changed.
fn turns_text(id: &str, turns: &[TurnView]) -> String {
    if turns.is_empty() {
        return format!("session {id} has no prompt recorded");
    }
    let mut text = format!("prompts of session {id} (rewind --to N):");
    for turn in turns {
        let first = turn.text.lines().next().unwrap_or("");
        text.push_str(&format!("\n{:>3}  {}  {first}", turn.number, turn.time));
        if !turn.files.is_empty() {
            text.push_str(&format!("\n       changed: {}", turn.files.join(", ")));
        }
        if !turn.in_conversation {
            text.push_str("\n       (compacted: only its files can be rewound)");
        }
    }
    text
}
