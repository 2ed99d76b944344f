//! The context budget during a request: before every model call the size of the request is known
//! (what the provider counted for the last call, plus an estimate of what was added since; an estimate
//! of everything before the first call), and past the threshold the older history is compacted. A
//! provider's "context too long" error triggers one compaction and one retry.

use tunacode_protocol::AgentEvent;

use super::{Interrupt, RequestRun};
use crate::compaction::{apply, keep_from, summarize, summary_request};
use crate::history::prune_tool_outputs;
use crate::tokens::TokenCounter;

impl RequestRun<'_> {
    /// Estimated tokens of the next request; `fixed` is its system prompt and tools. The model's own
    /// tokenizer is used only once the request nears the window (where precision matters), so short
    /// sessions never load it.
    pub(super) fn next_request_tokens(&self, fixed: u64) -> u64 {
        let budget = self.agent.options.context;
        let estimate = self.request_tokens(fixed, TokenCounter::Estimate);
        if budget.tokens == TokenCounter::Estimate || budget.window.is_none_or(|w| estimate < w / 2)
        {
            return estimate;
        }
        self.request_tokens(fixed, budget.tokens)
    }

    fn request_tokens(&self, fixed: u64, counter: TokenCounter) -> u64 {
        self.meter
            .request_tokens(fixed, self.history.messages(), counter)
    }

    /// Prunes old tool outputs (replaced by a placeholder) once the request has grown past the pruning
    /// budget, and again each time it grew by the pruning minimum since the last try: every iteration
    /// may prune, none walks the history for nothing.
    pub(super) fn prune_if_worth(&mut self, fixed: u64) {
        let prune = self.agent.options.prune;
        let tokens = self.next_request_tokens(fixed);
        if !self.meter.try_pruning(tokens, &prune) {
            return;
        }
        if let Some((freed, first)) = prune_tool_outputs(self.history_mut(), &prune) {
            tracing::info!(freed, "pruned old tool outputs");
            self.journal_touch(first);
            self.meter.rewritten();
            let after = self.next_request_tokens(fixed);
            self.meter.pruned_to(after);
        }
    }

    /// Compacts when the next request would pass the threshold of the window. Returns whether it did.
    pub(super) async fn compact_if_needed(&mut self, fixed: u64) -> Result<bool, Interrupt> {
        let tokens = self.next_request_tokens(fixed);
        if !self.agent.options.context.needs_compaction(tokens) {
            return Ok(false);
        }
        self.compact(None, fixed).await
    }

    /// Replaces the older history by a summary the model writes without tools (`focus`: what the
    /// summary should keep). Returns whether anything was compacted.
    pub(super) async fn compact(
        &mut self,
        focus: Option<&str>,
        fixed: u64,
    ) -> Result<bool, Interrupt> {
        let budget = self.agent.options.context;
        let before = self.next_request_tokens(fixed);
        let Some(keep) = keep_from(self.history.messages(), budget.keep_budget()) else {
            return Ok(false);
        };
        let request = summary_request(
            &self.agent.options.provider_model,
            &self.history.messages()[..keep],
            focus,
            budget.summary_input_limit(),
        );
        let client = self
            .agent
            .clients
            .get(&self.agent.provider)
            .map_err(Interrupt::Failed)?;
        let summary = summarize(client.as_ref(), request, &self.cancel)
            .await
            .map_err(|e| match e {
                tunacode_llm::LlmError::Cancelled => Interrupt::Cancelled,
                other => Interrupt::Failed(other),
            })?;
        if self.cancel.is_cancelled() {
            return Err(Interrupt::Cancelled);
        }
        let compacted = self.history.messages()[..keep]
            .iter()
            .filter(|m| m.in_conversation())
            .count();
        let first = apply(self.history_mut(), keep, &summary);
        self.journal_touch(first);
        self.history.recheck_all();
        self.meter.rewritten();
        self.agent.events.emit(AgentEvent::ContextCompacted {
            tokens_before: before,
            tokens_after: self.next_request_tokens(fixed),
            compacted_messages: compacted,
        });
        Ok(true)
    }
}
