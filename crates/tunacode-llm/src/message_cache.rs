//! The serialized form of history messages, kept between the calls of one request: a message that is
//! already in the history is serialized once and its bytes reused by every later call, so a turn
//! serializes only what is new (the rest is copied). The engine says when messages change in place
//! (pruning, compaction, clean-up): the cache forgets them from there on.

use std::sync::{Arc, Mutex};

use serde_json::value::RawValue;

/// The wire form of one canonical message: the provider messages it became.
pub type Serialized = Arc<Vec<Box<RawValue>>>;

/// Serialized messages by their index in the history.
#[derive(Debug, Default)]
pub struct MessageCache {
    entries: Mutex<Vec<Option<Serialized>>>,
}

impl MessageCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The message at `index`, if it was serialized since it last changed.
    pub fn get(&self, index: usize) -> Option<Serialized> {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.get(index).cloned().flatten()
    }

    /// Keeps the message at `index`.
    pub fn put(&self, index: usize, serialized: Serialized) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.len() <= index {
            entries.resize(index + 1, None);
        }
        entries[index] = Some(serialized);
    }

    /// Forgets the messages from `index` on (they changed in place).
    pub fn invalidate_from(&self, index: usize) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.truncate(index);
    }
}

/// A cache never changes what a request means.
impl PartialEq for MessageCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
