//! Rewind, undo and redo on a session: the conversation is cut just before a prompt (its node's
//! marker finds it), the files are put back (`code.rs`, `restore.rs`), and a redo point keeps
//! where the user was (the conversation, the nodes and a snapshot of the workspace before the
//! first rewind) until the next prompt. Blocking (git): call from a blocking thread. The caller
//! saves the session file (when the conversation changed) and the tree.

use std::sync::Arc;

use tunacode_protocol::runtime::{RewindMode, Rewound};
use tunacode_store::{RedoPoint, Snapshot, TreeEvent, now_rfc3339};

use super::code::code_plan;
use super::conversation::{cut_before, locate};
use super::restore::{FileTarget, Restored};
use crate::checkpoints::{CheckpointError, Checkpoints, Stop};
use crate::session::Session;

/// Why a rewind, undo or redo did nothing.
#[derive(Debug, thiserror::Error)]
pub enum RewindError {
    /// What was asked for cannot be done (no such prompt, nothing to redo).
    #[error("{0}")]
    Invalid(String),
    /// The shadow store failed.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
}

/// Goes back to just before prompt `to` (1-based) of `session`. `kind` is `rewind` or `undo`.
pub fn rewind(
    store: &Checkpoints,
    session: &mut Session,
    to: usize,
    mode: RewindMode,
    kind: &str,
) -> Result<Rewound, RewindError> {
    let place = place_of(session, to, mode)?;
    let node = session.tree.nodes[to - 1].clone();
    let mut redo = session.tree.redo.take().unwrap_or_else(|| RedoPoint {
        at: to,
        messages: None,
        nodes: session.tree.nodes.clone(),
        workspace: None,
        written: Default::default(),
    });
    let (restored, notes) = match rewind_code(store, session, &mut redo, to, mode) {
        Ok(done) => done,
        Err(e) => {
            session.tree.redo =
                (redo.messages.is_some() || redo.workspace.is_some()).then_some(redo);
            return Err(e);
        }
    };
    let mut report = Rewound {
        kind: kind.to_string(),
        prompt: to,
        mode,
        files: restored.files,
        kept: restored.kept,
        skipped: restored.skipped,
        notes,
        ..Rewound::default()
    };
    if let Some(place) = place {
        if redo.messages.is_none() {
            redo.messages = Some(session.messages.to_vec());
        }
        report.messages_dropped = cut_before(Arc::make_mut(&mut session.messages), place);
        session.update_token_count();
        session.tree.nodes.truncate(to - 1);
        report.text = node.text;
    }
    redo.at = to;
    session.tree.redo = Some(redo);
    session.tree.events.push(TreeEvent {
        time: now_rfc3339(),
        kind: kind.to_string(),
        prompt: Some(to),
        detail: Some(mode.name().to_string()),
    });
    Ok(report)
}

/// Where prompt `to` is in the conversation, when `mode` rewinds it (`None` when it does not); an
/// error when there is no such prompt or it was compacted away.
fn place_of(
    session: &Session,
    to: usize,
    mode: RewindMode,
) -> Result<Option<(usize, usize)>, RewindError> {
    let count = session.tree.nodes.len();
    if to == 0 || to > count {
        return Err(RewindError::Invalid(match count {
            0 => "this session has no prompt recorded to rewind to".into(),
            n => format!("this session has {n} prompt(s): rewind to one of 1..{n}"),
        }));
    }
    if !mode.conversation() {
        return Ok(None);
    }
    let marker = &session.tree.nodes[to - 1].marker;
    locate(&session.messages, marker).map(Some).ok_or_else(|| {
        RewindError::Invalid(format!(
            "prompt {to} is no longer in the conversation (it was compacted into a summary); \
             its files can still be rewound (mode `code`)"
        ))
    })
}

/// Puts the files back for a rewind to `to` (when `mode` covers them), first recording the
/// workspace for redo.
fn rewind_code(
    store: &Checkpoints,
    session: &Session,
    redo: &mut RedoPoint,
    to: usize,
    mode: RewindMode,
) -> Result<(Restored, Vec<String>), RewindError> {
    if !mode.code() {
        return Ok((Restored::default(), Vec::new()));
    }
    let now = snapshot_now(store, session, redo)?;
    if redo.workspace.is_none() {
        redo.workspace = Some(now.commit.clone());
    }
    let mut plan = code_plan(store, &redo.nodes, to - 1, &now)?;
    // A file an earlier rewind put back holds what that rewind wrote, not what the agent left.
    for target in &mut plan.targets {
        if let Some(written) = redo.written.get(&target.path) {
            target.expected = written.clone();
        }
    }
    let (kept, targets): (Vec<_>, Vec<_>) = plan
        .targets
        .into_iter()
        .partition(|t| plan.user_changed.contains(&t.path));
    let mut restored = store.restore_files(targets)?;
    restored.kept.extend(kept.into_iter().map(|t| t.path));
    restored.kept.sort();
    restored.skipped.extend(plan.skipped);
    redo.written.append(&mut restored.written.clone());
    Ok((restored, plan.notes))
}

/// The workspace now, with every file a turn or a rewind changed recorded even when ignored.
fn snapshot_now(
    store: &Checkpoints,
    session: &Session,
    redo: &RedoPoint,
) -> Result<Snapshot, RewindError> {
    // Only the files of turns this machine recorded (an imported session names files it never
    // touched here).
    let mut forced: Vec<String> = redo
        .nodes
        .iter()
        .filter(|n| n.before.is_some())
        .flat_map(|n| n.files.clone())
        .collect();
    forced.extend(redo.written.keys().cloned());
    Ok(store.take(&session.id, "before a rewind", &forced, &Stop::default())?)
}

/// Puts the files back as they were before the last prompt that changed them, counted from where
/// an earlier rewind left them (`to`: the `to`-th such prompt back).
pub fn undo(store: &Checkpoints, session: &mut Session, to: usize) -> Result<Rewound, RewindError> {
    let nodes = match &session.tree.redo {
        Some(redo) => &redo.nodes,
        None => &session.tree.nodes,
    };
    let position = session.tree.redo.as_ref().map_or(nodes.len() + 1, |r| r.at);
    let changed: Vec<usize> = (1..position.min(nodes.len() + 1))
        .filter(|&n| nodes[n - 1].before.is_some())
        .collect();
    let Some(&prompt) = changed.iter().rev().nth(to.max(1) - 1) else {
        return Err(RewindError::Invalid(match changed.len() {
            0 => "nothing to undo: no earlier prompt of this session changed files".into(),
            n => format!("only {n} earlier prompt(s) of this session changed files, not {to}"),
        }));
    };
    rewind_nodes(store, session, prompt)
}

/// A code rewind over the nodes redo keeps (an undo after a conversation rewind still sees the
/// later prompts' snapshots).
fn rewind_nodes(
    store: &Checkpoints,
    session: &mut Session,
    prompt: usize,
) -> Result<Rewound, RewindError> {
    let kept_nodes = session.tree.nodes.clone();
    if let Some(redo) = &session.tree.redo {
        session.tree.nodes = redo.nodes.clone();
    }
    let rewound = rewind(store, session, prompt, RewindMode::Code, "undo");
    session.tree.nodes = kept_nodes;
    rewound
}

/// Returns to where the user was before the rewinds since the last prompt.
pub fn redo(store: &Checkpoints, session: &mut Session) -> Result<Rewound, RewindError> {
    let Some(redo) = session.tree.redo.take() else {
        return Err(RewindError::Invalid(
            "nothing to redo: redo follows a rewind or undo, until the next prompt".into(),
        ));
    };
    let mut report = Rewound {
        kind: "redo".into(),
        prompt: redo.nodes.len(),
        mode: match (&redo.messages, &redo.workspace) {
            (Some(_), Some(_)) => RewindMode::All,
            (Some(_), None) => RewindMode::Conversation,
            _ => RewindMode::Code,
        },
        ..Rewound::default()
    };
    if let Some(workspace) = &redo.workspace {
        let paths: Vec<String> = redo.written.keys().cloned().collect();
        let mut entries = match store.entries_at(workspace, &paths) {
            Ok(entries) => entries,
            Err(e) => {
                session.tree.redo = Some(redo);
                return Err(e.into());
            }
        };
        let targets = redo
            .written
            .iter()
            .map(|(path, written)| FileTarget {
                path: path.clone(),
                expected: written.clone(),
                target: entries.remove(path),
            })
            .collect();
        let restored = store.restore_files(targets)?;
        report.files = restored.files;
        report.kept = restored.kept;
        report.skipped = restored.skipped;
    }
    if let Some(messages) = redo.messages {
        report.messages_dropped = 0;
        session.messages = Arc::new(messages);
        session.update_token_count();
    }
    session.tree.nodes = redo.nodes;
    session.tree.events.push(TreeEvent {
        time: now_rfc3339(),
        kind: "redo".into(),
        prompt: None,
        detail: None,
    });
    Ok(report)
}
