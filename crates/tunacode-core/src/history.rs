//! History preparation before a run (seed 000 §2.3, seed 001 "Request Loop Contract" step 3):
//! prune old tool outputs to a token budget, clean up until consistent (dangling tool calls, orphaned
//! tool answers, empty responses, consecutive requests), handle a trailing request, strip system prompts.
//!
//! Messages outside the conversation (legacy dicts, compacted messages) are never sent to a model nor
//! changed; the clean-up looks through them.

use std::collections::HashSet;
use std::sync::Arc;

use tunacode_protocol::{Message, Part, content_text};

/// What replaces a pruned tool output.
pub const PRUNED_PLACEHOLDER: &str = "[Old tool result content cleared]";

/// Budget for pruning old tool outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PruneConfig {
    /// The most recent tool output (estimated tokens) always kept whole.
    pub protect_tokens: u64,
    /// Prune only when it frees at least this many tokens.
    pub minimum_tokens: u64,
}

/// A rough token estimate (4 characters a token); provider-reported usage is the truth for totals.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// Estimated tokens of a whole history.
pub fn estimate_history_tokens(messages: &[Message]) -> u64 {
    messages.iter().map(estimated_message_tokens).sum()
}

/// The estimated tokens of one message, worked out once per message and kept with it.
pub fn estimated_message_tokens(message: &Message) -> u64 {
    message.estimated_tokens(|m| count_history_tokens(std::slice::from_ref(m), estimate_tokens))
}

/// Tokens of a whole history, each text counted by `count`. Copies no text: tool arguments are
/// written to one reused buffer, content is borrowed.
pub fn count_history_tokens(messages: &[Message], count: impl Fn(&str) -> u64) -> u64 {
    use std::fmt::Write as _;
    let mut json = String::new();
    let mut as_json = |value: &serde_json::Value| {
        json.clear();
        let _ = write!(json, "{value}");
        count(&json)
    };
    let mut total = 0;
    for part in messages.iter().flat_map(|m| m.parts.iter()) {
        total += match part {
            Part::SystemPrompt(x) => count(&x.content),
            Part::UserPrompt(x) => count(&content_text(&x.content)),
            Part::Text(x) => count(&x.content),
            Part::Thinking(x) => count(&x.content),
            Part::ToolCall(x) => count(x.args.json()) + 4,
            Part::ToolReturn(x) => count(&content_text(&x.content)),
            Part::RetryPrompt(x) => count(&content_text(&x.content)),
            Part::Other(v) => as_json(v),
        };
    }
    total
}

/// Prepares stored history for a new request. The result satisfies the invariants: every tool call has
/// exactly one answer in the next request, no answer is orphaned, no response is empty, no two requests
/// are adjacent, no system prompt remains. A trailing request that answers tool calls is kept (the new
/// prompt joins it); any other trailing request is dropped.
/// A history that is already prepared (the common case: the session was saved by a finished run) is
/// returned as it is, shared, not copied.
pub fn prepare_history(messages: &Arc<Vec<Message>>, prune: &PruneConfig) -> Arc<Vec<Message>> {
    if is_prepared(messages, prune) {
        return messages.clone();
    }
    let mut history = messages.to_vec();
    prune_old_tool_outputs(&mut history, prune);
    strip_system_prompts(&mut history);
    drop_trailing_prompt_request(&mut history);
    run_cleanup_loop(&mut history);
    Arc::new(history)
}

/// Whether [`prepare_history`] would change nothing: no tool output to prune, no system prompt or
/// `run_id` to strip, no trailing unanswered prompt, and nothing the clean-up loop removes (the
/// invariants, and no empty message, orphaned or repeated answer). Reads the history; copies nothing.
fn is_prepared(messages: &[Message], prune: &PruneConfig) -> bool {
    let strippable = messages.iter().filter(|m| m.in_conversation()).any(|m| {
        m.extra.contains_key("run_id")
            || m.parts.iter().any(|p| matches!(p, Part::SystemPrompt(_)))
            || (m.is_request() && m.parts.is_empty())
    });
    let trailing_prompt = last_canonical(messages).is_some_and(|last| {
        let m = &messages[last];
        m.is_request() && !m.parts.iter().any(Part::is_tool_answer)
    });
    !strippable
        && !trailing_prompt
        && prune_candidates(messages, prune).is_none()
        && check_invariants(messages).is_ok()
        && !has_empty_or_stray_answers(messages)
}

/// What `remove_empty_messages` and `remove_orphaned_answers` would remove, read only: an empty
/// message, or a tool answer that answers no call of the response before it or repeats one.
fn has_empty_or_stray_answers(messages: &[Message]) -> bool {
    messages.iter().enumerate().any(|(i, m)| {
        if !m.in_conversation() {
            return false;
        }
        if m.parts.is_empty() || m.is_empty_response() {
            return true;
        }
        if !m.is_request() {
            return false;
        }
        let calls = match prev_canonical(messages, i) {
            Some(p) if messages[p].is_response() => {
                Ids::of(messages[p].tool_calls().map(|c| c.tool_call_id.as_str()))
            }
            _ => Ids::of(std::iter::empty()),
        };
        let mut seen = Ids::of(std::iter::empty());
        m.parts.iter().filter(|p| p.is_tool_answer()).any(|p| {
            let id = p.tool_call_id().unwrap_or_default();
            !calls.contains(id) || !seen.insert(id)
        })
    })
}

/// Replaces the content of tool outputs older than the protected budget with a placeholder, when that
/// frees at least `minimum_tokens`. Returns the estimated tokens freed.
pub fn prune_old_tool_outputs(messages: &mut [Message], prune: &PruneConfig) -> u64 {
    prune_tool_outputs(messages, prune).map_or(0, |(freed, _)| freed)
}

/// [`prune_old_tool_outputs`], returning what it freed and the first message it changed.
pub fn prune_tool_outputs(messages: &mut [Message], prune: &PruneConfig) -> Option<(u64, usize)> {
    prune_plan(messages, prune)?.apply(messages)
}

/// What pruning `messages` would replace, found by reading them (`None`: too little to be worth it),
/// so a history with nothing to prune is never handed out to change.
pub fn prune_plan(messages: &[Message], prune: &PruneConfig) -> Option<PrunePlan> {
    let (freed, candidates) = prune_candidates(messages, prune)?;
    Some(PrunePlan { freed, candidates })
}

/// The tool outputs a pruning replaces (message and part index), with the tokens that frees.
#[derive(Debug)]
pub struct PrunePlan {
    freed: u64,
    candidates: Vec<(usize, usize)>,
}

impl PrunePlan {
    /// Replaces the planned outputs of `messages` (the history it was planned on) with the
    /// placeholder. Returns what it freed and the first message it changed.
    pub fn apply(self, messages: &mut [Message]) -> Option<(u64, usize)> {
        let first = self.candidates.iter().map(|c| c.0).min()?;
        for (mi, pi) in self.candidates {
            if let Part::ToolReturn(ret) = &mut messages[mi].parts[pi] {
                ret.content = PRUNED_PLACEHOLDER.into();
            }
        }
        Some((self.freed, first))
    }
}

/// The tool outputs [`prune_tool_outputs`] would replace (message and part index), with the tokens
/// that frees; `None` when that is too little to be worth it.
fn prune_candidates(
    messages: &[Message],
    prune: &PruneConfig,
) -> Option<(u64, Vec<(usize, usize)>)> {
    let mut seen = 0u64;
    let mut candidates = Vec::new();
    for (mi, message) in messages.iter().enumerate().rev() {
        if !message.in_conversation() {
            continue;
        }
        for (pi, part) in message.parts.iter().enumerate().rev() {
            if let Part::ToolReturn(ret) = part {
                let text = content_text(&ret.content);
                if text == PRUNED_PLACEHOLDER {
                    continue;
                }
                let tokens = estimate_tokens(&text);
                if seen >= prune.protect_tokens {
                    candidates.push((mi, pi, tokens));
                }
                seen += tokens;
            }
        }
    }
    let freed: u64 = candidates.iter().map(|c| c.2).sum();
    if freed < prune.minimum_tokens || freed == 0 {
        return None;
    }
    Some((
        freed,
        candidates.into_iter().map(|(m, p, _)| (m, p)).collect(),
    ))
}

/// Removes system prompt parts (and `run_id`) so they are never persisted or resent.
pub fn strip_system_prompts(messages: &mut Vec<Message>) {
    // Messages are shared with the session: only those with something to strip are changed (copied).
    let strippable = |m: &Message| {
        m.in_conversation()
            && (m.extra.contains_key("run_id")
                || m.parts.iter().any(|p| matches!(p, Part::SystemPrompt(_))))
    };
    for m in messages.iter_mut().filter(|m| strippable(m)) {
        m.parts.retain(|p| !matches!(p, Part::SystemPrompt(_)));
        m.extra.remove("run_id");
    }
    messages.retain(|m| !(m.in_conversation() && m.is_request() && m.parts.is_empty()));
}

/// Drops a trailing request that holds no tool answers (an unanswered prompt).
fn drop_trailing_prompt_request(messages: &mut Vec<Message>) {
    if let Some(last) = last_canonical(messages) {
        let m = &messages[last];
        if m.is_request() && !m.parts.iter().any(Part::is_tool_answer) {
            messages.remove(last);
        }
    }
}

/// Repeats the clean-up steps until nothing changes.
pub fn run_cleanup_loop(messages: &mut Vec<Message>) {
    for _ in 0..16 {
        let changed = remove_dangling_tool_calls(messages)
            | remove_orphaned_answers(messages)
            | remove_empty_messages(messages)
            | merge_consecutive_requests(messages);
        if !changed {
            break;
        }
    }
}

fn last_canonical(messages: &[Message]) -> Option<usize> {
    messages.iter().rposition(|m| m.in_conversation())
}

fn next_canonical(messages: &[Message], after: usize) -> Option<usize> {
    (after + 1..messages.len()).find(|&i| messages[i].in_conversation())
}

fn prev_canonical(messages: &[Message], before: usize) -> Option<usize> {
    (0..before).rev().find(|&i| messages[i].in_conversation())
}

fn answered_ids(message: &Message) -> HashSet<String> {
    message
        .parts
        .iter()
        .filter(|p| p.is_tool_answer())
        .filter_map(|p| p.tool_call_id().map(str::to_string))
        .collect()
}

/// Tool-call ids to look up, borrowed from the history: in a list for the usual few, hashed past
/// that (a hostile message of thousands of calls is not quadratic). The checks every request runs
/// over the whole history so copy no id and allocate nothing for a message without calls.
enum Ids<'a> {
    Few(Vec<&'a str>),
    Many(HashSet<&'a str>),
}

/// Up to this many ids, a list.
const FEW_IDS: usize = 16;

impl<'a> Ids<'a> {
    fn of(ids: impl Iterator<Item = &'a str>) -> Self {
        let few: Vec<&str> = ids.collect();
        if few.len() <= FEW_IDS {
            Ids::Few(few)
        } else {
            Ids::Many(few.into_iter().collect())
        }
    }

    fn contains(&self, id: &str) -> bool {
        match self {
            Ids::Few(few) => few.contains(&id),
            Ids::Many(many) => many.contains(id),
        }
    }

    /// Adds `id`; false when it was there already.
    fn insert(&mut self, id: &'a str) -> bool {
        if self.contains(id) {
            return false;
        }
        match self {
            Ids::Few(few) if few.len() < FEW_IDS => few.push(id),
            Ids::Few(few) => *self = Ids::Many(few.drain(..).chain([id]).collect()),
            Ids::Many(many) => {
                many.insert(id);
            }
        }
        true
    }
}

/// Removes tool calls with no answer in the next request.
fn remove_dangling_tool_calls(messages: &mut [Message]) -> bool {
    let mut changed = false;
    for i in 0..messages.len() {
        if !messages[i].in_conversation() || !messages[i].is_response() {
            continue;
        }
        let answered = match next_canonical(messages, i) {
            Some(n) if messages[n].is_request() => answered_ids(&messages[n]),
            _ => HashSet::new(),
        };
        changed |= retain_parts(&mut messages[i], || {
            |p: &Part| match p {
                Part::ToolCall(c) => answered.contains(&c.tool_call_id),
                _ => true,
            }
        });
    }
    changed
}

/// Removes tool answers whose call is not in the previous response, and duplicate answers.
fn remove_orphaned_answers(messages: &mut [Message]) -> bool {
    let mut changed = false;
    for i in 0..messages.len() {
        if !messages[i].in_conversation() || !messages[i].is_request() {
            continue;
        }
        let calls: HashSet<String> = match prev_canonical(messages, i) {
            Some(p) if messages[p].is_response() => messages[p]
                .tool_calls()
                .map(|c| c.tool_call_id.clone())
                .collect(),
            _ => HashSet::new(),
        };
        let calls = &calls;
        changed |= retain_parts(&mut messages[i], || {
            let mut seen = HashSet::new();
            move |p: &Part| {
                if !p.is_tool_answer() {
                    return true;
                }
                let id = p.tool_call_id().unwrap_or_default();
                calls.contains(id) && seen.insert(id.to_string())
            }
        });
    }
    changed
}

/// Keeps the parts `keep` keeps, and whether one went. The message is shared with the session: it is
/// changed (so copied) only when a part goes. `keep` is made afresh for the look and for the change.
fn retain_parts<K: FnMut(&Part) -> bool>(message: &mut Message, keep: impl Fn() -> K) -> bool {
    let mut look = keep();
    if message.parts.iter().all(&mut look) {
        return false;
    }
    message.parts.retain(keep());
    true
}

/// Removes empty responses and requests with no parts.
fn remove_empty_messages(messages: &mut Vec<Message>) -> bool {
    let before = messages.len();
    messages.retain(|m| {
        !m.in_conversation() || !(m.parts.is_empty() || (m.is_response() && m.is_empty_response()))
    });
    messages.len() != before
}

/// Joins adjacent requests into one, keeping every part in order.
fn merge_consecutive_requests(messages: &mut Vec<Message>) -> bool {
    let mut changed = false;
    let mut i = 0;
    while i < messages.len() {
        if !messages[i].in_conversation() || !messages[i].is_request() {
            i += 1;
            continue;
        }
        match next_canonical(messages, i) {
            Some(n) if messages[n].is_request() => {
                let next = messages.remove(n);
                messages[i].parts.extend(next.into_body().parts);
                changed = true;
            }
            _ => i += 1,
        }
    }
    changed
}

/// Whether a history satisfies the invariants checked before every model request.
pub fn check_invariants(messages: &[Message]) -> Result<(), String> {
    let canonical: Vec<&Message> = messages.iter().filter(|m| m.in_conversation()).collect();
    for (i, m) in canonical.iter().enumerate() {
        if m.parts.iter().any(|p| matches!(p, Part::SystemPrompt(_))) {
            return Err(format!("message {i} holds a system prompt"));
        }
        if m.is_request() && canonical.get(i + 1).is_some_and(|n| n.is_request()) {
            return Err(format!(
                "messages {i} and {} are consecutive requests",
                i + 1
            ));
        }
        if m.is_response() {
            let answers = canonical.get(i + 1).filter(|n| n.is_request()).map(|n| {
                n.parts
                    .iter()
                    .filter(|p| p.is_tool_answer())
                    .filter_map(Part::tool_call_id)
            });
            let answered = Ids::of(answers.into_iter().flatten());
            if let Some(c) = m.tool_calls().find(|c| !answered.contains(&c.tool_call_id)) {
                return Err(format!(
                    "tool call `{}` in message {i} has no answer",
                    c.tool_call_id
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
