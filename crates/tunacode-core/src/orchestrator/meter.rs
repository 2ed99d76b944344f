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
    /// The last size worked out with each counter (estimate, tokenizer), for the history as it was
    /// then: a turn asks several times (pruning, compaction, the call itself, each with the estimate
    /// and, near the window, the tokenizer) and a long history is counted once with each.
    last: std::sync::Mutex<[Option<Counted>; 2]>,
}

/// A request size worked out, and what it was worked out for.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Counted {
    generation: u64,
    counter: TokenCounter,
    fixed: u64,
    tokens: u64,
}

impl ContextMeter {
    /// The provider counted `tokens` for a call whose answer will be message `len - 1`.
    pub(super) fn counted(&mut self, tokens: u64, len: usize) {
        self.measured = Some((tokens, len));
        *self.last() = [None; 2];
    }

    /// The history was rewritten in place (pruned or compacted): the last count no longer holds.
    pub(super) fn rewritten(&mut self) {
        self.measured = None;
        *self.last() = [None; 2];
        self.rewritten_since_call = true;
    }

    /// The size of a request over `messages` (at `generation`, see [`Transcript::generation`]) with
    /// `fixed` tokens of system prompt and tools: the last count plus an estimate of what came after
    /// it, or an estimate of everything.
    ///
    /// [`Transcript::generation`]: super::transcript::Transcript::generation
    pub(super) fn request_tokens(
        &self,
        fixed: u64,
        messages: &[Message],
        generation: u64,
        counter: TokenCounter,
    ) -> u64 {
        let key = |tokens| Counted {
            generation,
            counter,
            fixed,
            tokens,
        };
        let slot = counter as usize;
        if let Some(last) = self.last()[slot].filter(|l| *l == key(l.tokens)) {
            return last.tokens;
        }
        let tokens = match self.measured {
            Some((tokens, len)) if tokens > 0 && len <= messages.len() => {
                tokens + counted_conversation_tokens(&messages[len..], counter)
            }
            _ => fixed + counted_conversation_tokens(messages, counter),
        };
        self.last()[slot] = Some(key(tokens));
        tokens
    }

    fn last(&self) -> std::sync::MutexGuard<'_, [Option<Counted>; 2]> {
        self.last
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
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

#[cfg(test)]
mod tests {
    use super::*;
    use tunacode_protocol::Part;

    fn history(texts: &[&str]) -> Vec<Message> {
        texts
            .iter()
            .map(|t| Message::response(vec![Part::text(*t)]))
            .collect()
    }

    #[test]
    fn a_history_is_counted_once_per_generation_and_again_after_a_change_or_a_count() {
        let meter = ContextMeter::default();
        let estimate = TokenCounter::Estimate;
        let short = history(&["abcd"; 10]);
        assert_eq!(meter.request_tokens(100, &short, 1, estimate), 110);
        // The same generation is the same history: its size is not worked out again.
        let longer = history(&["abcd"; 20]);
        assert_eq!(meter.request_tokens(100, &longer, 1, estimate), 110);
        // A new generation, other fixed tokens: worked out again.
        assert_eq!(meter.request_tokens(100, &longer, 2, estimate), 120);
        assert_eq!(meter.request_tokens(50, &longer, 2, estimate), 70);
        // The provider's count replaces the estimate, for the same generation too.
        let mut meter = meter;
        meter.counted(1000, 15);
        assert_eq!(meter.request_tokens(50, &longer, 2, estimate), 1005);
        meter.rewritten();
        assert_eq!(meter.request_tokens(50, &longer, 2, estimate), 70);
    }

    #[test]
    fn each_counter_keeps_its_own_size_of_the_same_history() {
        let meter = ContextMeter::default();
        let texts = history(&["abcd"; 10]);
        let estimate = meter.request_tokens(0, &texts, 7, TokenCounter::Estimate);
        let tokenized = meter.request_tokens(0, &texts, 7, TokenCounter::OpenAi);
        assert_eq!(estimate, 10);
        // Both kept: asking in turn gives each its own answer, not the other's.
        let other = history(&["abcd"; 30]);
        for _ in 0..2 {
            assert_eq!(
                meter.request_tokens(0, &other, 7, TokenCounter::Estimate),
                estimate
            );
            assert_eq!(
                meter.request_tokens(0, &other, 7, TokenCounter::OpenAi),
                tokenized
            );
        }
    }
}
