//! What the calls of one request keep between them: the body of the last call, so that the next
//! call of the same history continues it (`continued_body.rs`) and a turn writes only what is new.
//! The body keeps where each message's bytes end, so when the engine says that messages changed in
//! place (pruning, compaction, clean-up) the body is cut back before the first changed one instead
//! of written again. A call on another wire starts afresh. A message's bytes depend on the wire and
//! the message only: a call on the same wire that writes messages differently (another model's
//! dialect) must follow `invalidate_from(0)`, as the engine's fallback to another model does.

use std::sync::Mutex;

/// The body of a history's last call, kept for the next one.
#[derive(Debug, Default)]
pub struct MessageCache {
    body: Mutex<Option<KeptBody>>,
}

/// The body of a history's last call: the next call's body is this one cut after its kept messages
/// (with the same lead, or the kept elements moved after another one), when none of them changed
/// since.
#[derive(Debug)]
pub(crate) struct KeptBody {
    /// The wire it was written for.
    pub(crate) wire: &'static str,
    /// The whole body.
    pub(crate) bytes: bytes::Bytes,
    /// The length of what comes before the history's messages (compared, byte for byte).
    pub(crate) lead: usize,
    /// Whether the lead ends with an element of the history's array (Chat's system message).
    pub(crate) lead_any: bool,
    /// Where the body may be cut, in order: after how many of the history's messages (from the
    /// first), and where their bytes end. The last is where the kept messages end.
    pub(crate) cuts: Vec<(usize, usize)>,
}

impl MessageCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
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

    /// Forgets the messages from `index` on (they changed in place): the kept body can only be cut
    /// before them.
    pub fn invalidate_from(&self, index: usize) {
        let mut body = self.body.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(kept) = body.as_mut() {
            let valid = kept.cuts.partition_point(|&(covered, _)| covered <= index);
            kept.cuts.truncate(valid);
            if kept.cuts.is_empty() {
                *body = None;
            }
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

    fn kept(wire: &'static str, cuts: Vec<(usize, usize)>) -> KeptBody {
        KeptBody {
            wire,
            bytes: bytes::Bytes::from_static(b"{\"m\":[1,2,3]}"),
            lead: 6,
            lead_any: false,
            cuts,
        }
    }

    #[test]
    fn a_change_cuts_the_kept_body_back_before_it() {
        let cache = MessageCache::new();
        cache.keep_body(kept("chat", vec![(1, 7), (2, 9), (3, 11)]));
        assert!(cache.take_body("gemini").is_none(), "kept for another wire");
        assert!(cache.take_body("chat").is_none(), "a body is taken once");
        cache.keep_body(kept("chat", vec![(1, 7), (2, 9), (3, 11)]));
        cache.invalidate_from(2);
        assert_eq!(cache.take_body("chat").unwrap().cuts, [(1, 7), (2, 9)]);
        cache.keep_body(kept("chat", vec![(1, 7), (2, 9)]));
        cache.invalidate_from(0);
        assert!(
            cache.take_body("chat").is_none(),
            "nothing is left before the change"
        );
    }
}
