//! The iteration limit (seed 004): a progress summary with the original query goes to the user, who
//! chooses to continue (the limit grows by 5), to have the model summarize and stop, or to try another
//! approach. A headless run stops. When the request ends with no answer shown, a fallback response built
//! from the tool history says what was done and what is left.

use tunacode_protocol::{AgentEvent, NoticeLevel};

use super::guide::Guide;
use super::request::{Interrupt, Request};
use super::transcript::Transcript;
use crate::approval::{LimitDecision, ProgressReport};
use crate::guidance::{
    ANOTHER_APPROACH_PROMPT, LIMIT_EXTENSION, SUMMARIZE_PROMPT, fallback_response, limit_summary,
    tools_used,
};
use crate::registry::ToolCallRecord;

/// What the user chose at the limit.
pub(super) enum AtLimit {
    /// The request goes on.
    GoOn,
    /// The request stops; the fallback response when no answer reached the user.
    Stop(Option<String>),
}

impl Guide {
    /// Asks the user how to go on; `answered`: an answer reached the user already.
    pub(super) async fn at_limit(
        &mut self,
        req: &Request<'_>,
        t: &mut Transcript,
        answered: bool,
    ) -> Result<AtLimit, Interrupt> {
        let records = tool_records(req);
        let tools = tools_used(&records);
        let (count, limit) = (self.iterations.count(), self.iterations.limit());
        let summary = limit_summary(limit, count, &tools, &req.message);
        req.emit(AgentEvent::IterationLimitReached {
            iterations: count,
            max_iterations: limit,
            tools_used: tools,
            original_query: req.message.clone(),
            summary: summary.clone(),
        });
        let report = ProgressReport {
            iterations: count,
            max_iterations: limit,
            original_query: req.message.clone(),
            summary,
        };
        let decision = tokio::select! {
            d = req.agent.approver.on_iteration_limit(&report) => d,
            _ = req.cancel.cancelled() => return Err(Interrupt::Cancelled),
        };
        match decision {
            LimitDecision::Continue => self.extend_limit(req, "Continuing"),
            LimitDecision::TryAnotherApproach => {
                self.extend_limit(req, "Trying another approach");
                t.add_user_prompt(ANOTHER_APPROACH_PROMPT.to_string());
            }
            LimitDecision::Summarize => {
                self.iterations.summarize_last();
                t.add_user_prompt(SUMMARIZE_PROMPT.to_string());
            }
            LimitDecision::Stop => {
                return Ok(AtLimit::Stop(self.fallback(req, &records, answered)));
            }
        }
        Ok(AtLimit::GoOn)
    }

    fn extend_limit(&mut self, req: &Request, what: &str) {
        let limit = self.iterations.extend(LIMIT_EXTENSION);
        req.notice(
            NoticeLevel::Info,
            format!("{what}: the iteration limit is now {limit}."),
        );
    }

    /// Seed 004's fallback: shown when the limit ends a request before any answer reached the user.
    fn fallback(
        &self,
        req: &Request,
        records: &[ToolCallRecord],
        answered: bool,
    ) -> Option<String> {
        if answered || !req.agent.options.guidance.fallback_response {
            return None;
        }
        let text = fallback_response(records, &req.message, self.iterations.count());
        req.emit(AgentEvent::FallbackResponse { text: text.clone() });
        Some(text)
    }
}

fn tool_records(req: &Request) -> Vec<ToolCallRecord> {
    req.agent
        .session
        .lock()
        .runtime
        .tool_registry
        .records()
        .to_vec()
}
