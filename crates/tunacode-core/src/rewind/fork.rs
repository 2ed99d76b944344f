//! Forking: a new session (its own id, a `parent` link naming the session and prompt it came
//! from) whose history ends after a prompt of the original, with that prompt's nodes and their
//! snapshots (so it can rewind its files too). The original is left as it is.

use tunacode_store::{ForkOrigin, SessionTree, TreeEvent, now_rfc3339};

use super::conversation::{cut_before, locate};
use super::session_rewind::RewindError;
use crate::session::Session;

/// A fork of `session` after prompt `at` (1-based; default: the last).
pub fn fork(session: &Session, at: Option<usize>) -> Result<Session, RewindError> {
    let count = session.tree.nodes.len();
    let at = at.unwrap_or(count);
    if at > count || (at == 0 && count > 0) {
        return Err(RewindError::Invalid(match count {
            0 => "this session has no prompt recorded: fork it whole (no number)".into(),
            n => format!("this session has {n} prompt(s): fork at one of 1..{n}"),
        }));
    }
    let mut forked = session.clone();
    if let Some(next) = session.tree.nodes.get(at) {
        let place = locate(&forked.messages, &next.marker).ok_or_else(|| {
            RewindError::Invalid(format!(
                "prompt {} is no longer in the conversation (it was compacted into a summary), \
                 so the history cannot be cut after prompt {at}",
                at + 1
            ))
        })?;
        cut_before(std::sync::Arc::make_mut(&mut forked.messages), place);
    }
    forked.id = uuid::Uuid::new_v4().to_string();
    forked.created_at = now_rfc3339();
    forked.journal_base = None;
    forked.runtime = Default::default();
    forked.update_token_count();
    forked.tree = SessionTree {
        parent: Some(ForkOrigin {
            session_id: session.id.clone(),
            prompt: at,
            subagent: None,
        }),
        nodes: session.tree.nodes[..at].to_vec(),
        ..SessionTree::default()
    };
    Ok(forked)
}

/// Notes in the original's tree that it was forked.
pub fn record_fork(original: &mut Session, forked: &Session, at: usize) {
    original.tree.events.push(TreeEvent {
        time: now_rfc3339(),
        kind: "fork".into(),
        prompt: Some(at),
        detail: Some(forked.id.clone()),
    });
}
