//! The serialized form of history messages, kept between the calls of one request: a message that is
//! already in the history is serialized once and its bytes reused by every later call, so a turn
//! serializes only what is new (the rest is copied). The engine says when messages change in place
//! (pruning, compaction, clean-up): the cache forgets them from there on. Entries are kept for one
//! wire format at a time: a call on another wire (a fallback model) starts the cache afresh.

use std::sync::{Arc, Mutex};

use serde_json::value::RawValue;

/// The wire form of one canonical message: the provider messages (or items, blocks, parts) it became.
pub type Serialized = Arc<Vec<Box<RawValue>>>;

/// Serialized messages by their index in the history.
#[derive(Debug, Default)]
pub struct MessageCache {
    entries: Mutex<Entries>,
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
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.wire != wire {
            return Vec::new();
        }
        entries.messages.clone()
    }

    /// Keeps the message at `index` as `wire` sends it (forgetting every entry of another wire).
    pub fn put(&self, wire: &'static str, index: usize, serialized: Serialized) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.wire != wire {
            entries.wire = wire;
            entries.messages.clear();
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
        Arc::new(vec![serde_json::value::to_raw_value(text).unwrap()])
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
