//! The serialized form of history messages, kept between the calls of one request: a message that is
//! already in the history is serialized once and its bytes reused by every later call, so a turn
//! serializes only what is new (the rest is copied). The engine says when messages change in place
//! (pruning, compaction, clean-up): the cache forgets them from there on. Entries are kept for one
//! wire format at a time: a call on another wire (a fallback model) starts the cache afresh.

use std::sync::{Arc, Mutex};

use serde_json::value::RawValue;

/// The wire form of one canonical message: the provider messages (or items, blocks, parts) it became
/// (one allocation for the list, shared by the cache and the calls that copy it).
pub type Serialized = Arc<[Box<RawValue>]>;

/// Serialized messages by their index in the history.
#[derive(Debug, Default)]
pub struct MessageCache {
    entries: Mutex<Entries>,
    /// The body of the last call, for the next one to continue from (see [`KeptBody`]).
    body: Mutex<Option<KeptBody>>,
}

/// The body of a history's last call: the next call's body is this one cut after its kept messages,
/// when what comes before them is the same (the lead) and none of them changed since.
#[derive(Debug)]
pub(crate) struct KeptBody {
    /// The wire it was written for.
    pub(crate) wire: &'static str,
    /// The whole body.
    pub(crate) bytes: bytes::Bytes,
    /// The length of what comes before the history's messages (compared, byte for byte).
    pub(crate) lead: usize,
    /// Where the last kept message's bytes end.
    pub(crate) kept_end: usize,
    /// How many of the history's messages those bytes cover (from the first).
    pub(crate) covered: usize,
    /// Whether any array element is written before `kept_end`.
    pub(crate) any: bool,
}

/// The wire the entries were written for, and the entries.
#[derive(Debug, Default)]
struct Entries {
    wire: &'static str,
    messages: Vec<Option<Serialized>>,
}

impl MessageCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every message kept for `wire`, by index (one lock for a whole body).
    pub fn kept(&self, wire: &'static str) -> Vec<Option<Serialized>> {
        self.kept_from(wire, 0)
    }

    /// The messages kept for `wire` from index `start` on.
    pub fn kept_from(&self, wire: &'static str, start: usize) -> Vec<Option<Serialized>> {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.wire != wire {
            return Vec::new();
        }
        entries.messages.get(start..).unwrap_or_default().to_vec()
    }

    /// Keeps the body of a call for the next one.
    pub(crate) fn keep_body(&self, body: KeptBody) {
        *self.body.lock().unwrap_or_else(|p| p.into_inner()) = Some(body);
    }

    /// The body kept for `wire`, taken out.
    pub(crate) fn take_body(&self, wire: &'static str) -> Option<KeptBody> {
        let mut body = self.body.lock().unwrap_or_else(|p| p.into_inner());
        body.take().filter(|b| b.wire == wire)
    }

    /// Keeps the message at `index` as `wire` sends it (forgetting every entry of another wire).
    pub fn put(&self, wire: &'static str, index: usize, serialized: Serialized) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.wire != wire {
            entries.wire = wire;
            entries.messages.clear();
            *self.body.lock().unwrap_or_else(|p| p.into_inner()) = None;
        }
        if entries.messages.len() <= index {
            entries.messages.resize(index + 1, None);
        }
        entries.messages[index] = Some(serialized);
    }

    /// Forgets the messages from `index` on (they changed in place).
    pub fn invalidate_from(&self, index: usize) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.messages.truncate(index);
        let mut body = self.body.lock().unwrap_or_else(|p| p.into_inner());
        if body.as_ref().is_some_and(|b| index < b.covered) {
            *body = None;
        }
    }
}

/// A cache never changes what a request means.
impl PartialEq for MessageCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Serialized {
        Arc::from(vec![serde_json::value::to_raw_value(text).unwrap()])
    }

    #[test]
    fn entries_serve_only_the_wire_they_were_written_for() {
        let cache = MessageCache::new();
        let text = |kept: &[Option<Serialized>], i: usize| {
            kept.get(i)
                .cloned()
                .flatten()
                .map(|s| s[0].get().to_string())
        };
        cache.put("anthropic", 0, one("a"));
        cache.put("anthropic", 2, one("c"));
        let kept = cache.kept("anthropic");
        assert_eq!(kept.len(), 3);
        assert_eq!(text(&kept, 0).as_deref(), Some("\"a\""));
        assert_eq!(text(&kept, 1), None);
        assert_eq!(text(&kept, 2).as_deref(), Some("\"c\""));
        assert!(cache.kept("gemini").is_empty());
        // Another wire's entry starts the cache afresh.
        cache.put("gemini", 1, one("g"));
        assert!(cache.kept("anthropic").is_empty());
        assert_eq!(text(&cache.kept("gemini"), 1).as_deref(), Some("\"g\""));
        cache.invalidate_from(1);
        assert_eq!(text(&cache.kept("gemini"), 1), None);
    }
}
