//! The iteration limit (seed 004): a progress summary with the original query goes to the user, who
//! chooses to continue (the limit grows by 5), to have the model summarize and stop, or to try another
//! approach. A headless run stops. When the request ends with no answer shown, a fallback response built
//! from the tool history says what was done and what is left.

use tunacode_protocol::{AgentEvent, FinishReason, NoticeLevel};

use super::{Interrupt, RequestRun};
use crate::approval::{LimitDecision, ProgressReport};
use crate::guidance::{
    ANOTHER_APPROACH_PROMPT, LIMIT_EXTENSION, SUMMARIZE_PROMPT, fallback_response, limit_summary,
    tools_used,
};

impl RequestRun<'_> {
    /// Asks the user how to go on. `Some` ends the request.
    pub(super) async fn handle_iteration_limit(
        &mut self,
    ) -> Result<Option<FinishReason>, Interrupt> {
        let records = self
            .agent
            .session
            .lock()
            .runtime
            .tool_registry
            .records()
            .to_vec();
        let tools = tools_used(&records);
        let summary = limit_summary(
            self.iterations.limit(),
            self.iterations.count(),
            &tools,
            &self.message,
        );
        self.agent.events.emit(AgentEvent::IterationLimitReached {
            iterations: self.iterations.count(),
            max_iterations: self.iterations.limit(),
            tools_used: tools,
            original_query: self.message.clone(),
            summary: summary.clone(),
        });
        let report = ProgressReport {
            iterations: self.iterations.count(),
            max_iterations: self.iterations.limit(),
            original_query: self.message.clone(),
            summary,
        };
        let decision = tokio::select! {
            d = self.agent.approver.on_iteration_limit(&report) => d,
            _ = self.cancel.cancelled() => return Err(Interrupt::Cancelled),
        };
        match decision {
            LimitDecision::Continue => {
                self.extend_limit("Continuing");
                Ok(None)
            }
            LimitDecision::TryAnotherApproach => {
                self.extend_limit("Trying another approach");
                self.add_user_prompt(ANOTHER_APPROACH_PROMPT.to_string());
                Ok(None)
            }
            LimitDecision::Summarize => {
                self.iterations.summarize_last();
                self.add_user_prompt(SUMMARIZE_PROMPT.to_string());
                Ok(None)
            }
            LimitDecision::Stop => {
                self.set_fallback_if_silent();
                Ok(Some(FinishReason::IterationLimit))
            }
        }
    }

    fn extend_limit(&mut self, what: &str) {
        let limit = self.iterations.extend(LIMIT_EXTENSION);
        self.agent.events.emit(AgentEvent::Notice {
            level: NoticeLevel::Info,
            message: format!("{what}: the iteration limit is now {limit}."),
        });
    }

    /// Seed 004's fallback: shown when the limit ends a request before any answer reached the user.
    fn set_fallback_if_silent(&mut self) {
        if self.state.has_user_response || !self.agent.options.guidance.fallback_response {
            return;
        }
        let records = self
            .agent
            .session
            .lock()
            .runtime
            .tool_registry
            .records()
            .to_vec();
        let text = fallback_response(&records, &self.message, self.iterations.count());
        self.agent
            .events
            .emit(AgentEvent::FallbackResponse { text: text.clone() });
        self.fallback = Some(text);
    }
}
