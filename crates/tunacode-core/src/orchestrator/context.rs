//! [`ContextKeeper`]: the step that keeps a request inside the model's window. Before every model call
//! the size of the request is known (what the provider counted for the last call, plus an estimate of
//! what was added since; an estimate of everything before the first call); old tool outputs are
//! pruned once that is worth it, and past the threshold the older history is compacted. A provider's
//! "context too long" error triggers one compaction and one retry (the model call step asks).

use tunacode_protocol::{AgentEvent, Message, NoticeLevel, Usage};

use super::hook_points;
use super::meter::ContextMeter;
use super::record::record_usage;
use super::request::{Interrupt, Request};
use super::spend;
use super::transcript::Transcript;
use crate::compaction::{
    apply, counted_conversation_tokens, keep_from, summarize, summary_request,
};
use crate::compaction_attachments::shorten_kept_attachments;
use crate::history::prune_plan;
use crate::session::CallMark;
use crate::tokens::TokenCounter;

/// Pruning and compaction, with what they know of the request's size.
#[derive(Debug, Default)]
pub(super) struct ContextKeeper {
    meter: ContextMeter,
}

impl ContextKeeper {
    /// Estimated tokens of the next request; `fixed` is its system prompt and tools. The model's own
    /// tokenizer is used only once the request nears the window (where precision matters), so short
    /// sessions never load it.
    pub(super) fn next_request_tokens(&self, req: &Request, t: &Transcript, fixed: u64) -> u64 {
        let budget = req.agent.options.context;
        let estimate =
            self.meter
                .request_tokens(fixed, t.messages(), t.generation(), TokenCounter::Estimate);
        if budget.tokens == TokenCounter::Estimate || budget.window.is_none_or(|w| estimate < w / 2)
        {
            return estimate;
        }
        self.meter
            .request_tokens(fixed, t.messages(), t.generation(), budget.tokens)
    }

    /// A call of `model` was answered with `usage`; its answer will be message `len - 1`. A call that
    /// read nothing from the provider's prompt cache although the one before it did (and nothing
    /// rewrote the history in between) is pointed out with its likely cause.
    pub(super) fn answered(&mut self, req: &Request, usage: &Usage, len: usize, model: &str) {
        self.meter
            .counted(usage.request_tokens + usage.response_tokens, len);
        let rewritten = self.meter.take_rewritten();
        let mut session = req.agent.session.lock();
        let mark = CallMark {
            at: std::time::Instant::now(),
            model: model.to_string(),
            tools: session.runtime.offered_tools.clone(),
            cached: usage.cached_tokens,
        };
        let previous = session.runtime.last_call.replace(mark.clone());
        drop(session);
        let Some(previous) = previous.filter(|p| p.cached > 0 && mark.cached == 0 && !rewritten)
        else {
            return;
        };
        req.notice(
            NoticeLevel::Warning,
            format!(
                "This call read nothing from the provider's prompt cache although the one before it \
                 did ({}), so all {} input tokens were billed at the full price.",
                miss_cause(&previous, &mark),
                usage.request_tokens
            ),
        );
    }

    /// The history was rewritten outside a model call's view (a compaction): the next call is
    /// expected to miss the cache.
    fn forget_last_call(req: &Request) {
        req.agent.session.lock().runtime.last_call = None;
    }

    /// Prunes old tool outputs (replaced by a placeholder) once the request has grown past the pruning
    /// budget, and again each time it grew by the pruning minimum since the last try: every iteration
    /// may prune, none walks the history for nothing.
    pub(super) fn prune_if_worth(&mut self, req: &Request, t: &mut Transcript, fixed: u64) {
        let prune = req.agent.options.prune;
        let tokens = self.next_request_tokens(req, t, fixed);
        if !self.meter.try_pruning(tokens, &prune) {
            return;
        }
        // Read first: a history with nothing worth pruning keeps its generation (and its size).
        let Some(plan) = prune_plan(t.messages(), &prune) else {
            return;
        };
        if let Some(freed) = t.rewrite(|history| plan.apply(history)) {
            tracing::info!(freed, "pruned old tool outputs");
            self.meter.rewritten();
            let after = self.next_request_tokens(req, t, fixed);
            self.meter.pruned_to(after);
        }
    }

    /// Compacts when the next request would pass the threshold of the window. Returns whether it did.
    pub(super) async fn compact_if_needed(
        &mut self,
        req: &Request<'_>,
        t: &mut Transcript,
        fixed: u64,
    ) -> Result<bool, Interrupt> {
        let tokens = self.next_request_tokens(req, t, fixed);
        if !req.agent.options.context.needs_compaction(tokens) {
            return Ok(false);
        }
        self.compact(req, t, Cause::Threshold, fixed).await
    }

    /// Replaces the older history by a summary the model writes without tools, for `cause`.
    /// Returns whether anything was compacted; a `PreCompact` hook may refuse it, and a summary that
    /// would not make the conversation smaller is not applied (unless the provider said it overflowed:
    /// then it is authoritative over our estimate).
    pub(super) async fn compact(
        &mut self,
        req: &Request<'_>,
        t: &mut Transcript,
        cause: Cause<'_>,
        fixed: u64,
    ) -> Result<bool, Interrupt> {
        let budget = req.agent.options.context;
        let before = self.next_request_tokens(req, t, fixed);
        // Asked, the user wants the history summarized now: only the latest turn stays whole.
        let (focus, manual, keep_budget) = match cause {
            Cause::Asked(focus) => (focus, true, 0),
            Cause::Threshold | Cause::Overflow => (None, false, budget.keep_budget()),
        };
        let Some(keep) = keep_from(t.messages(), keep_budget) else {
            return Ok(false);
        };
        if refused_by_hook(req, focus, manual).await {
            return Ok(false);
        }
        let request = summary_request(
            &req.agent.options.provider_model,
            &t.messages()[..keep],
            focus,
            budget.summary_input_limit(),
        );
        let summary = summarize_within_budget(req, request, before).await?;
        req.check_cancelled()?;
        let compacted = t.messages()[..keep]
            .iter()
            .filter(|m| m.in_conversation())
            .count();
        let Some((history, first)) =
            compacted_history(req, t.messages(), (keep, &summary.text), fixed, cause)
        else {
            return Ok(false);
        };
        t.rewrite(|old| {
            *old = history;
            Some(((), first))
        });
        t.recheck_all();
        self.meter.rewritten();
        Self::forget_last_call(req);
        req.emit(AgentEvent::ContextCompacted {
            tokens_before: before,
            tokens_after: self.next_request_tokens(req, t, fixed),
            compacted_messages: compacted,
        });
        Ok(true)
    }
}

/// The history with the span before `keep` replaced by `summary`, and the first index changed. The
/// kept prompts' long attachments are shortened when the result would still pass the threshold.
/// `None` (with a notice) when the summary would not make the conversation smaller.
fn compacted_history(
    req: &Request<'_>,
    messages: &[Message],
    (keep, summary): (usize, &str),
    fixed: u64,
    cause: Cause<'_>,
) -> Option<(Vec<Message>, usize)> {
    let budget = req.agent.options.context;
    let tokens = |m: &[Message]| fixed + counted_conversation_tokens(m, budget.tokens);
    let before = tokens(messages);
    let mut history = messages.to_vec();
    let first = apply(&mut history, keep, summary);
    let shortened =
        shorten_kept_attachments(&mut history, keep, |m| !budget.needs_compaction(tokens(m)));
    let after = tokens(&history);
    if after >= before && !matches!(cause, Cause::Overflow) {
        req.emit(AgentEvent::Notice {
            level: NoticeLevel::Warning,
            message: format!(
                "Compaction skipped: the summary (~{after} tokens in all) would not be smaller \
                 than the history it replaces (~{before}). Nothing was changed."
            ),
        });
        return None;
    }
    if !shortened.is_empty() {
        req.emit(AgentEvent::Notice {
            level: NoticeLevel::Info,
            message: format!(
                "Attachments shortened to fit the window: {} (the model can read them again).",
                shortened.join(", ")
            ),
        });
    }
    Some((history, first))
}

/// Why the history is compacted.
#[derive(Debug, Clone, Copy)]
pub(super) enum Cause<'a> {
    /// The next request would pass the threshold of the window.
    Threshold,
    /// The provider said the request was too long.
    Overflow,
    /// The user asked (`/compact`), with what the summary should keep.
    Asked(Option<&'a str>),
}

/// Why a call missed the cache the call before it hit: what changed between them.
fn miss_cause(previous: &CallMark, now: &CallMark) -> String {
    let idle = now.at.duration_since(previous.at);
    if previous.model != now.model {
        format!("the model changed from {} to {}", previous.model, now.model)
    } else if previous.tools != now.tools {
        "the offered tools changed".into()
    } else if idle >= CACHE_LIFETIME {
        format!(
            "the provider's cache likely expired: {} min passed since the last call",
            idle.as_secs() / 60
        )
    } else {
        "the start of the request changed".into()
    }
}

/// How long providers keep a prompt cache without use (Anthropic's default and OpenAI's usual).
const CACHE_LIFETIME: std::time::Duration = std::time::Duration::from_secs(5 * 60);

/// Has the model write the summary, held and settled against the budget like any call.
async fn summarize_within_budget(
    req: &Request<'_>,
    mut request: tunacode_llm::ModelRequest,
    before: u64,
) -> Result<crate::compaction::Summary, Interrupt> {
    let client = req
        .agent
        .clients
        .get(&req.agent.provider)
        .map_err(Interrupt::Failed)?;
    let asked = request.max_output_tokens.map(u64::from);
    let held = spend::hold(req, &req.agent.options, || before, asked).await?;
    if let Some(clamp) = held.clamp {
        request.max_output_tokens = Some(u32::try_from(clamp).unwrap_or(u32::MAX));
    }
    let summarized = summarize(client.as_ref(), request, &req.cancel).await;
    let usage = summarized.as_ref().ok().and_then(|s| s.usage);
    // A summary that failed is not known to be billed (it streams nothing to watch).
    let billed = summarized.is_err() && req.cancel.is_cancelled();
    spend::settle(req, &req.agent.options, held, (usage, billed)).await;
    let summary = summarized.map_err(|e| match e {
        tunacode_llm::LlmError::Cancelled => Interrupt::Cancelled,
        other => Interrupt::Failed(other),
    })?;
    // What the summary cost counts like any call's.
    if let Some(usage) = summary.usage {
        record_usage(req.agent, usage, None);
    }
    Ok(summary)
}

/// Runs the `PreCompact` hooks; whether one refused the compaction (said as a warning).
async fn refused_by_hook(req: &Request<'_>, focus: Option<&str>, manual: bool) -> bool {
    use crate::hooks::HookEvent;
    let trigger = if manual { "manual" } else { "auto" };
    let mut fields = hook_points::field("trigger", trigger);
    fields.insert(
        "custom_instructions".into(),
        focus.unwrap_or_default().into(),
    );
    let agent = req.agent;
    let verdict = hook_points::run_hooks(
        agent,
        &req.cancel,
        HookEvent::PreCompact,
        (&[trigger], fields),
    )
    .await;
    let Some(reason) = verdict.block else {
        return false;
    };
    let message = format!("A PreCompact hook kept the history as it is: {reason}");
    req.notice(NoticeLevel::Warning, message);
    true
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::{CallMark, miss_cause};

    #[test]
    fn a_miss_is_put_down_to_what_changed_between_the_calls() {
        let at = Instant::now();
        let before = CallMark {
            at,
            model: "anthropic:claude-a".into(),
            tools: vec!["read_file".into()],
            cached: 9000,
        };
        let after = |f: &dyn Fn(&mut CallMark)| {
            let mut mark = CallMark {
                at: at + Duration::from_secs(30),
                cached: 0,
                ..before.clone()
            };
            f(&mut mark);
            miss_cause(&before, &mark)
        };
        assert!(after(&|m| m.model = "anthropic:claude-b".into()).contains("the model changed"));
        assert_eq!(
            after(&|m| m.tools.push("mcp__x".into())),
            "the offered tools changed"
        );
        assert!(after(&|m| m.at = at + Duration::from_secs(420)).contains("expired: 7 min"));
        assert_eq!(after(&|_| {}), "the start of the request changed");
    }
}
