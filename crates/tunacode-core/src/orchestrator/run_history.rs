//! [`RunHistory`]: the request's own copy of the conversation (prepared once, shared with each model
//! call without copying, changed through [`RunHistory::edit`]), what of it passed the invariant check,
//! the tool-call ids it holds (kept unique), and the cache of its last call's body, which the next
//! call continues.

use std::collections::HashSet;
use std::sync::Arc;

use tunacode_llm::MessageCache;
use tunacode_protocol::{Message, Part};

use crate::history::{check_invariants, run_cleanup_loop};

/// The history a request works on.
#[derive(Debug, Default)]
pub(super) struct RunHistory {
    /// The messages, shared with the model request of each turn.
    messages: Arc<Vec<Message>>,
    /// Messages before this index passed the invariant check (only later ones are checked).
    checked: usize,
    /// The session's length when the request began (messages after it were added from outside).
    baseline: usize,
    /// Every tool-call id in the history sent to the model.
    call_ids: HashSet<String>,
    /// The last call's body, cut back to where the history changes in place.
    cache: Arc<MessageCache>,
    /// Which state of the messages this is (see [`RunHistory::generation`]).
    generation: u64,
}

/// A generation no history of this process had yet.
fn next_generation() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Messages a run's copy of a shared history has room for before it grows.
const ROOM_FOR_A_RUN: usize = 64;

impl RunHistory {
    /// The prepared history of a request over a session of `baseline` messages.
    pub(super) fn prepared(messages: Arc<Vec<Message>>, baseline: usize) -> Self {
        let call_ids = messages
            .iter()
            .flat_map(|m| m.tool_calls())
            .map(|c| c.tool_call_id.clone())
            .collect();
        RunHistory {
            messages,
            checked: 0,
            baseline,
            call_ids,
            cache: Arc::new(MessageCache::new()),
            generation: next_generation(),
        }
    }

    /// The messages (a cheap clone shares them).
    pub(super) fn messages(&self) -> &Arc<Vec<Message>> {
        &self.messages
    }

    /// The messages, to change (copied only if a model request still holds them). A change in
    /// place must be said with [`RunHistory::changed_from`].
    pub(super) fn edit(&mut self) -> &mut Vec<Message> {
        self.generation = next_generation();
        if Arc::get_mut(&mut self.messages).is_none() {
            // Copied with room for what a run adds: an exact copy doubles at the first push (a
            // 10,000-message list then holds room for 20,000 pointers).
            let mut copy = Vec::with_capacity(self.messages.len() + ROOM_FOR_A_RUN);
            copy.extend(self.messages.iter().cloned());
            self.messages = Arc::new(copy);
        }
        Arc::make_mut(&mut self.messages)
    }

    /// Hands the messages out to `change`, which returns `None` when it changed nothing: they then
    /// keep their generation (what was worked out from them still holds).
    pub(super) fn edit_if<T>(
        &mut self,
        change: impl FnOnce(&mut Vec<Message>) -> Option<T>,
    ) -> Option<T> {
        let before = self.generation;
        let changed = change(self.edit());
        if changed.is_none() {
            self.generation = before;
        }
        changed
    }

    /// Names the state of the messages, unique in the process: a new one each time they are handed
    /// out to change. While it stays the same, so do they (what was worked out from them holds).
    pub(super) fn generation(&self) -> u64 {
        self.generation
    }

    /// The messages from `index` on changed in place: the kept body is cut back before them.
    pub(super) fn changed_from(&mut self, index: usize) {
        self.cache.invalidate_from(index);
    }

    /// Adds the user's `prompt` part: to the last request when it is one still in the conversation (the
    /// index changed in place is returned), else as a new message.
    pub(super) fn add_user_prompt(&mut self, prompt: Part) -> Option<usize> {
        let history = self.edit();
        match history.last_mut() {
            Some(last) if last.is_request() && last.in_conversation() => {
                last.parts.push(prompt);
                let last = history.len() - 1;
                self.checked = self.checked.min(last);
                Some(last)
            }
            _ => {
                history.push(Message::request(vec![prompt]));
                None
            }
        }
    }

    /// Checks the invariants of what was added since the last check (the message before it too: it
    /// may now have its answer) and cleans the whole history when one is broken; whether it did.
    pub(super) fn check_new(&mut self) -> bool {
        let from = self.checked.saturating_sub(1);
        let broken = check_invariants(&self.messages[from..]);
        if let Err(problem) = &broken {
            tracing::error!(%problem, "history invariant broken before a request; cleaning");
            run_cleanup_loop(self.edit());
        }
        self.checked = self.messages.len();
        broken.is_err()
    }

    /// The whole history is to be checked again (it was rewritten).
    pub(super) fn recheck_all(&mut self) {
        self.checked = 0;
    }

    /// Records a tool-call id; `false` when the history already has it.
    pub(super) fn new_call_id(&mut self, id: &str) -> bool {
        self.call_ids.insert(id.to_string())
    }

    /// The body cache the model requests of this run share.
    pub(super) fn cache(&self) -> Arc<MessageCache> {
        self.cache.clone()
    }

    /// The session's messages after the run: the run's, then what was added from outside during it
    /// (seed 000 §3.4: the run's messages are authoritative).
    pub(super) fn merged_with(&self, session: &[Message]) -> Arc<Vec<Message>> {
        let added = session.get(self.baseline..).unwrap_or_default();
        if added.is_empty() {
            // Nothing came from outside: the run's list is the session's, shared.
            return self.messages.clone();
        }
        let mut messages = self.messages.to_vec();
        messages.extend(added.iter().cloned());
        Arc::new(messages)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{PRUNED_PLACEHOLDER, PruneConfig, prune_plan};

    #[test]
    fn a_shared_history_is_copied_with_room_for_a_run_not_doubled_at_its_first_message() {
        let session = Arc::new(vec![Message::user("hi"); 1000]);
        let mut history = RunHistory::prepared(session.clone(), session.len());
        history.edit().push(Message::user("more"));
        let copy = history.messages();
        assert_eq!(copy.len(), 1001);
        assert!(
            copy.capacity() <= 1000 + ROOM_FOR_A_RUN,
            "{}",
            copy.capacity()
        );
        assert_eq!(session.len(), 1000, "the session's list is not changed");
    }

    #[test]
    fn a_change_that_changes_nothing_keeps_the_generation_and_a_pruning_try_finds_nothing_first() {
        let call = Part::tool_call("c1", "read_file", serde_json::json!({}));
        let messages = vec![
            Message::user("go"),
            Message::response(vec![call]),
            Message::request(vec![Part::tool_return("c1", "read_file", "short")]),
        ];
        let session = Arc::new(messages);
        let mut history = RunHistory::prepared(session.clone(), session.len());
        let before = history.generation();
        assert_eq!(history.edit_if(|_| None::<()>), None);
        assert_eq!(history.generation(), before, "nothing changed");
        let prune = PruneConfig {
            protect_tokens: 0,
            minimum_tokens: 1,
        };
        // The only output is worth pruning once nothing is protected: planned, applied, a new state.
        let plan = prune_plan(history.messages(), &prune).unwrap();
        assert_eq!(
            history.edit_if(|m| plan.apply(m)).map(|(_, first)| first),
            Some(2)
        );
        assert_ne!(history.generation(), before);
        assert!(prune_plan(history.messages(), &prune).is_none());
        // The run's copy changed, the session's own list did not.
        let output = |m: &Message| match &m.parts[0] {
            Part::ToolReturn(r) => r.content.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(output(&history.messages()[2]), PRUNED_PLACEHOLDER);
        assert_eq!(output(&session[2]), "short");
    }
}
