//! [`ContextMeter`]: what the run knows of its request's size between model calls: what the provider
//! counted for the last call (and the history length then), when pruning was last tried, whether the
//! history was rewritten since the last call.

use tunacode_protocol::Message;

use crate::compaction::counted_conversation_tokens;
use crate::history::PruneConfig;
use crate::tokens::TokenCounter;

/// The request's measured size and what changed it.
#[derive(Debug, Default)]
pub(super) struct ContextMeter {
    /// What the provider counted for the last call (input + output) and the history length then.
    measured: Option<(u64, usize)>,
    /// The request's estimated size when pruning was last tried.
    pruned_at: u64,
    /// A compaction or pruning changed the history since the last call (a cache miss is expected).
    rewritten_since_call: bool,
}

impl ContextMeter {
    /// The provider counted `tokens` for a call whose answer will be message `len - 1`.
    pub(super) fn counted(&mut self, tokens: u64, len: usize) {
        self.measured = Some((tokens, len));
    }

    /// The history was rewritten in place (pruned or compacted): the last count no longer holds.
    pub(super) fn rewritten(&mut self) {
        self.measured = None;
        self.rewritten_since_call = true;
    }

    /// The size of a request over `messages` with `fixed` tokens of system prompt and tools: the
    /// last count plus an estimate of what came after it, or an estimate of everything.
    pub(super) fn request_tokens(
        &self,
        fixed: u64,
        messages: &[Message],
        counter: TokenCounter,
    ) -> u64 {
        match self.measured {
            Some((tokens, len)) if tokens > 0 && len <= messages.len() => {
                tokens + counted_conversation_tokens(&messages[len..], counter)
            }
            _ => fixed + counted_conversation_tokens(messages, counter),
        }
    }

    /// Whether a request of `tokens` is worth pruning: past the budget, and grown by the minimum
    /// since the last try (which this one becomes).
    pub(super) fn try_pruning(&mut self, tokens: u64, prune: &PruneConfig) -> bool {
        if tokens < prune.protect_tokens + prune.minimum_tokens
            || tokens < self.pruned_at + prune.minimum_tokens
        {
            return false;
        }
        self.pruned_at = tokens;
        true
    }

    /// Pruning left the request at `tokens`.
    pub(super) fn pruned_to(&mut self, tokens: u64) {
        self.pruned_at = tokens;
    }

    /// Whether a compaction or pruning rewrote the history since the last call (forgotten now).
    pub(super) fn take_rewritten(&mut self) -> bool {
        std::mem::take(&mut self.rewritten_since_call)
    }
}
