//! `tunacode sessions`: this project's saved sessions, newest first (unreadable files are reported);
//! `tunacode context`: the instruction files the model reads here.

use std::io::Write;

use anyhow::Context;
use serde_json::json;
use tunacode_store::{Paths, SessionStore, SessionSummary, project_id};

use crate::args::SessionsArgs;

/// The project directory a command works on: `--cwd`, else the current one, made canonical.
pub fn project_dir(cwd: Option<std::path::PathBuf>) -> anyhow::Result<std::path::PathBuf> {
    let dir = match cwd {
        Some(dir) => dir,
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    std::fs::canonicalize(&dir).with_context(|| format!("{} is not usable", dir.display()))
}

/// Lists sessions; returns the exit code.
pub fn run(args: SessionsArgs) -> anyhow::Result<u8> {
    let paths = Paths::from_env()?;
    let cwd = project_dir(args.cwd)?;
    let store = SessionStore::new(&paths.sessions_dir);
    let (sessions, broken) = store.list(&project_id(&cwd))?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let list: Vec<_> = sessions
            .iter()
            .map(|s| {
                json!({"session_id": s.session_id, "last_modified": s.last_modified,
                "model": s.current_model, "messages": s.message_count, "title": s.title,
                "parent": s.parent, "path": s.path})
            })
            .collect();
        writeln!(out, "{}", json!(list))?;
    } else if sessions.is_empty() {
        writeln!(out, "No saved sessions for {}.", cwd.display())?;
    } else if args.tree {
        for (depth, s) in family_order(&sessions) {
            let fork = s
                .parent
                .as_ref()
                .map(|p| match &p.subagent {
                    Some(kind) => format!("↳ sub-agent {kind} of {}  ", short(&p.session_id)),
                    None => format!("↳ after prompt {} of {}  ", p.prompt, short(&p.session_id)),
                })
                .unwrap_or_default();
            writeln!(
                out,
                "{}{}  {}  {:>4} msgs  {fork}{}",
                "    ".repeat(depth),
                s.session_id,
                s.last_modified,
                s.message_count,
                s.title
            )?;
        }
    } else {
        for s in &sessions {
            writeln!(
                out,
                "{}  {}  {:>4} msgs  {}  {}",
                s.session_id, s.last_modified, s.message_count, s.current_model, s.title
            )?;
        }
    }
    let mut err = std::io::stderr().lock();
    for e in &broken {
        writeln!(err, "warning: unreadable session file: {e}")?;
    }
    Ok(0)
}

/// The sessions with each fork under the session it came from (newest first at each level), and
/// its depth. A fork whose original is gone is listed at the top.
fn family_order(sessions: &[SessionSummary]) -> Vec<(usize, &SessionSummary)> {
    let known: std::collections::HashSet<&str> =
        sessions.iter().map(|s| s.session_id.as_str()).collect();
    fn parent_of<'a>(
        s: &'a SessionSummary,
        known: &std::collections::HashSet<&str>,
    ) -> Option<&'a str> {
        s.parent
            .as_ref()
            .map(|p| p.session_id.as_str())
            .filter(|p| known.contains(p))
    }
    let mut ordered = Vec::new();
    let mut stack: Vec<(usize, &SessionSummary)> = sessions
        .iter()
        .filter(|s| parent_of(s, &known).is_none())
        .rev()
        .map(|s| (0, s))
        .collect();
    while let Some((depth, session)) = stack.pop() {
        ordered.push((depth, session));
        if depth > 64 {
            continue;
        }
        stack.extend(
            sessions
                .iter()
                .filter(|c| parent_of(c, &known) == Some(session.session_id.as_str()))
                .rev()
                .map(|c| (depth + 1, c)),
        );
    }
    ordered
}

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}
