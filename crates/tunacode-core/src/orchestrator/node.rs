//! Processing one model response (seed 000 §1.2 `process_node`): usage and thoughts, the completion
//! marker, structured or text tool calls, empty responses and the no-progress alert, tool dispatch.

use tunacode_protocol::{AgentEvent, FinishReason, Message, NoticeLevel, Part};
use tunacode_tools::ToolContext;

use super::{Interrupt, RequestRun};
use crate::completion::COMPLETION_MARKER;
use crate::dispatch::ToolDispatcher;
use crate::fallback_parse::parse_tool_calls_from_text;
use crate::guidance::{NO_PROGRESS_THRESHOLD, no_progress_alert};
use crate::response_state::AgentState;
use crate::streaming::Streamed;

impl RequestRun<'_> {
    /// Returns the finish reason when the request is over.
    pub(super) async fn process_node(
        &mut self,
        streamed: Streamed,
    ) -> Result<Option<FinishReason>, Interrupt> {
        let mut response = streamed.message;
        if let Some(usage) = &streamed.usage {
            let counted = usage.request_tokens + usage.response_tokens;
            self.meter
                .counted(counted, self.history.messages().len() + 1);
            self.notice_cache_miss(usage);
        }
        self.record_usage_and_thoughts(streamed.usage, &response);
        if streamed.completed {
            self.state.task_completed = true;
        }
        if response.tool_calls().next().is_none() && !self.iterations.summarizing() {
            self.fallback_calls(&mut response);
        }
        self.make_call_ids_unique(&mut response);
        let calls: Vec<_> = response.tool_calls().cloned().collect();
        if response.is_empty_response() {
            self.count_unproductive();
            self.handle_empty_response();
            self.transition(AgentState::Response);
            return Ok(self
                .iterations
                .summarizing()
                .then_some(FinishReason::IterationLimit));
        }
        self.agent
            .session
            .lock()
            .runtime
            .consecutive_empty_responses = 0;
        let text = response.text();
        if !text.trim().is_empty() {
            self.state.has_user_response = true;
            self.last_text = text;
        }
        self.history_mut().push(response);
        if self.iterations.summarizing() {
            self.transition(AgentState::Response);
            return Ok(Some(FinishReason::IterationLimit));
        }
        if calls.is_empty() {
            self.count_unproductive();
            self.transition(AgentState::Response);
            let reason = if self.state.task_completed {
                FinishReason::Completed
            } else {
                FinishReason::Answered
            };
            return Ok(Some(reason));
        }
        self.run_tools(&calls).await
    }

    /// Runs a response's tool calls and records their answers; the finish reason when the request is
    /// over (a plan was presented, the task is complete).
    async fn run_tools(
        &mut self,
        calls: &[tunacode_protocol::ToolCallPart],
    ) -> Result<Option<FinishReason>, Interrupt> {
        self.progress.productive(self.iterations.count());
        self.transition(AgentState::ToolExecution);
        self.journal_flush().await;
        let todos_before = self.agent.session.lock().todos.items();
        let dispatcher = self.dispatcher();
        self.undo_point
            .take(
                self.agent,
                &self.request_id,
                &self.cancel,
                (&dispatcher.tools, calls),
            )
            .await;
        let answers = dispatcher.dispatch(calls).await;
        self.history_mut().push(Message::request(answers.clone()));
        self.journal_answers(dispatcher.results.as_ref(), &answers);
        self.journal_flush().await;
        self.transition(AgentState::Response);
        let (todos_after, presented) = {
            let session = self.agent.session.lock();
            (
                session.todos.items(),
                session.runtime.plan_awaiting_approval.clone(),
            )
        };
        if todos_after != todos_before {
            self.agent
                .events
                .emit(AgentEvent::TodosUpdated { items: todos_after });
        }
        if self.cancel.is_cancelled() {
            return Err(Interrupt::Cancelled);
        }
        if let Some(plan) = presented {
            self.last_text = plan;
            return Ok(Some(FinishReason::PlanPresented));
        }
        Ok(self.state.task_completed.then_some(FinishReason::Completed))
    }

    fn count_unproductive(&mut self) {
        if !self.state.task_completed {
            self.progress.unproductive();
        }
    }

    fn record_usage_and_thoughts(
        &self,
        usage: Option<tunacode_protocol::Usage>,
        response: &Message,
    ) {
        let mut session = self.agent.session.lock();
        for part in &response.parts {
            if let Part::Thinking(t) = part
                && !t.content.trim().is_empty()
            {
                session
                    .thoughts
                    .push(serde_json::Value::String(t.content.clone()));
            }
        }
        if let Some(mut usage) = usage {
            if usage.cost == 0.0
                && let Some(pricing) = self.agent.options.pricing.filter(|p| p.is_known())
            {
                usage.cost = pricing.cost(&usage);
            }
            session.usage.last_call = usage;
            session.usage.session_total.add(&usage);
            self.agent.events.emit(AgentEvent::UsageUpdated {
                last_call: usage,
                session_total: session.usage.session_total,
            });
        }
    }

    /// Says when a call read nothing from the provider's prompt cache although the previous call of
    /// this request did (and no compaction changed the history in between): the start of the request
    /// changed, so its whole input was billed at the full price.
    fn notice_cache_miss(&mut self, usage: &tunacode_protocol::Usage) {
        if self.meter.unexpected_cache_miss(usage.cached_tokens) {
            self.agent.events.emit(AgentEvent::Notice {
                level: NoticeLevel::Warning,
                message: format!(
                    "This call read nothing from the provider's prompt cache although the previous \
                     one did: the start of the request changed, so all {} input tokens were billed \
                     at the full price.",
                    usage.request_tokens
                ),
            });
        }
    }

    /// Tool calls written as text become structured calls in the response, so they pair with answers.
    fn fallback_calls(&self, response: &mut Message) {
        let text = response.text();
        let found = parse_tool_calls_from_text(&text, |name| self.agent.tools.get(name).is_some());
        let mut count = 0;
        for (n, call) in found.into_iter().enumerate() {
            let id = format!("fallback_{}_{n}", self.request_id);
            // Malformed arguments stay text: dispatch answers the model with what is wrong.
            let args = match call.args {
                Ok(map) => serde_json::Value::Object(map),
                Err(raw) => serde_json::Value::String(raw),
            };
            response
                .parts
                .push(Part::tool_call(id, call.tool_name, args));
            count += 1;
        }
        if count > 0 {
            tracing::info!(count, "tool calls parsed from text");
        }
    }

    /// Seed 004 "Empty Response Recovery": a notice, and an intervention message to the model; after
    /// several tool-less iterations in a row, seed 004's no-progress alert instead.
    fn handle_empty_response(&mut self) {
        let count = {
            let mut session = self.agent.session.lock();
            session.runtime.consecutive_empty_responses += 1;
            session.runtime.consecutive_empty_responses
        };
        let stalled = self.progress.stalled(NO_PROGRESS_THRESHOLD);
        if self.agent.options.guidance.no_progress_alert
            && let Some((unproductive, last_productive)) = stalled
        {
            self.agent.events.emit(AgentEvent::Notice {
                level: NoticeLevel::Warning,
                message: format!(
                    "No tool calls for {unproductive} iterations; alerting the model."
                ),
            });
            let alert = no_progress_alert(
                unproductive,
                last_productive,
                self.iterations.count(),
                self.iterations.limit(),
                &self.message,
            );
            self.add_user_prompt(alert);
            return;
        }
        self.agent.events.emit(AgentEvent::Notice {
            level: NoticeLevel::Warning,
            message: format!(
                "The model returned an empty response (iteration {}, {count} in a row); asking it to act.",
                self.iterations.count()
            ),
        });
        let intervention = format!(
            "Your previous response was empty: no text and no tool call (iteration {}). The task is \
             still open:\n\n{}\n\nAct now: call a tool to make progress, or, if the task is complete, \
             reply starting with `{COMPLETION_MARKER}` followed by a summary. If you are blocked, say \
             exactly what blocks you.",
            self.iterations.count(),
            self.message
        );
        self.add_user_prompt(intervention);
    }

    /// A model (or a local server) may give several calls the same id, or reuse an id of an earlier
    /// turn; a strict provider rejects that history on the next request. Repeats get fresh ids here,
    /// before anything answers them, so each result stays paired with its own call.
    fn make_call_ids_unique(&mut self, response: &mut Message) {
        for part in &mut response.parts {
            if let Part::ToolCall(call) = part {
                while call.tool_call_id.is_empty() || !self.history.new_call_id(&call.tool_call_id)
                {
                    call.tool_call_id = format!("call_{}", super::new_request_id());
                }
            }
        }
    }

    fn dispatcher(&self) -> ToolDispatcher {
        let plan_mode = self.agent.session.lock().plan_mode;
        ToolDispatcher {
            tools: self.offered_tools_for_dispatch(),
            ctx: ToolContext {
                workspace: self.agent.workspace.clone(),
                cancel: self.cancel.clone(),
                exec: self.agent.exec.clone(),
                output: None,
            },
            approver: self.agent.approver.clone(),
            events: self.agent.events.clone(),
            session: self.agent.session.clone(),
            max_parallel: self.agent.options.max_parallel,
            tool_max_retries: self.agent.options.tool_max_retries,
            read_only_reason: plan_mode.then(|| PLAN_MODE_REFUSAL.to_string()),
            results: self.result_sink(),
        }
    }

    /// Every tool the model may legitimately call now, so a refused write in plan mode is answered
    /// as refused rather than as unknown.
    fn offered_tools_for_dispatch(&self) -> tunacode_tools::ToolSet {
        let mut tools = self.agent.current_tools();
        let offered = self.offered_tools();
        for name in offered.names() {
            if tools.get(name).is_none()
                && let Some(t) = offered.get(name)
            {
                tools.add(t);
            }
        }
        tools
    }
}

/// Told to the model when it calls a write or command in plan mode.
const PLAN_MODE_REFUSAL: &str = "Refused: plan mode is read-only. Investigate with the read-only tools, \
    then present your plan with `present_plan`; writes and commands become available once the user \
    approves it.";
