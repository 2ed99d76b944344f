//! [`RequestRun`]: one request through the loop of seed 000 §2 and seed 001's Request Loop Contract:
//! initialize (request id, runtime reset, original query) → prepare history → iterate (stream, process
//! the node, dispatch tools, detect empty responses and the completion marker, enforce
//! `max_iterations`) → persist (run messages plus messages appended from outside) → save. Abort, timeout
//! and failure keep partial text as `[INTERRUPTED]`, cancel in-flight tools, clean dangling calls, save.

use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;
use tunacode_llm::ModelRequest;
use tunacode_protocol::{AgentEvent, FinishReason, INTERRUPTED_MARKER, Message, NoticeLevel, Part};
use tunacode_tools::ToolContext;

use crate::agent::{Agent, RunOutcome};
use crate::completion::COMPLETION_MARKER;
use crate::dispatch::ToolDispatcher;
use crate::error::RequestError;
use crate::fallback_parse::parse_tool_calls_from_text;
use crate::history::{check_invariants, prepare_history, run_cleanup_loop};
use crate::response_state::{AgentState, ResponseState};
use crate::streaming::{StreamStop, stream_response};

/// Why the run token was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopCause {
    /// The user aborted.
    Abort,
    /// The global timeout fired.
    Timeout,
}

/// Why the iteration loop stopped early.
enum Interrupt {
    Cancelled,
    Failed(tunacode_llm::LlmError),
}

/// One request in flight.
pub(crate) struct RequestRun<'a> {
    agent: &'a Agent,
    message: String,
    cancel: CancellationToken,
    cause: Arc<Mutex<Option<StopCause>>>,
    request_id: String,
    run_messages: Vec<Message>,
    baseline: usize,
    state: ResponseState,
    /// Text the user saw of the response being streamed.
    shown: String,
    last_text: String,
    iteration: u32,
}

impl<'a> RequestRun<'a> {
    pub(crate) fn new(
        agent: &'a Agent,
        message: &str,
        cancel: CancellationToken,
        cause: Arc<Mutex<Option<StopCause>>>,
    ) -> Self {
        RequestRun {
            agent,
            message: message.to_string(),
            cancel,
            cause,
            request_id: new_request_id(),
            run_messages: Vec::new(),
            baseline: 0,
            state: ResponseState::new(),
            shown: String::new(),
            last_text: String::new(),
            iteration: 0,
        }
    }

    pub(crate) async fn run(mut self) -> Result<RunOutcome, RequestError> {
        self.initialize();
        let result = self.iterate().await;
        match result {
            Ok(reason) => {
                self.persist();
                self.save()?;
                self.agent.events.emit(AgentEvent::RequestFinished {
                    reason,
                    iterations: self.iteration,
                    response: self.last_text.clone(),
                });
                Ok(RunOutcome {
                    reason,
                    iterations: self.iteration,
                    response: self.last_text.clone(),
                    request_id: self.request_id.clone(),
                })
            }
            Err(interrupt) => Err(self.finish_interrupted(interrupt)),
        }
    }

    /// Seed 001 steps 1–3: id, runtime reset, original query, history preparation.
    fn initialize(&mut self) {
        let mut session = self.agent.session.lock();
        session.runtime.request_id = self.request_id.clone();
        session.runtime.current_iteration = 0;
        session.runtime.iteration_count = 0;
        session.runtime.tool_registry.clear();
        session.runtime.batch_counter = 0;
        session.runtime.consecutive_empty_responses = 0;
        session.task.original_query = self.message.clone();
        session.model = self.agent.options.model.clone();
        self.baseline = session.messages.len();
        self.run_messages = prepare_history(&session.messages, &self.agent.options.prune);
        let session_id = session.id.clone();
        drop(session);
        self.add_user_prompt(self.message.clone());
        tracing::info!(request_id = %self.request_id, "request started");
        self.agent.events.emit(AgentEvent::RequestStarted {
            request_id: self.request_id.clone(),
            model: self.agent.options.model.clone(),
            session_id,
        });
    }

    /// Adds a user prompt, joining a trailing request so requests never follow each other.
    fn add_user_prompt(&mut self, text: String) {
        match self.run_messages.last_mut() {
            Some(last) if last.is_request() && !last.is_legacy() => {
                last.parts.push(Part::user_prompt(text))
            }
            _ => self.run_messages.push(Message::user(text)),
        }
    }

    async fn iterate(&mut self) -> Result<FinishReason, Interrupt> {
        let options = &self.agent.options;
        loop {
            if self.iteration >= options.max_iterations {
                self.agent.events.emit(AgentEvent::Notice {
                    level: NoticeLevel::Warning,
                    message: format!(
                        "Reached the iteration limit ({}) before the task was done.",
                        options.max_iterations
                    ),
                });
                return Ok(FinishReason::IterationLimit);
            }
            self.iteration += 1;
            {
                let mut session = self.agent.session.lock();
                session.runtime.current_iteration = self.iteration;
                session.runtime.iteration_count = self.iteration;
            }
            self.agent.events.emit(AgentEvent::IterationStarted {
                iteration: self.iteration,
                max_iterations: options.max_iterations,
            });
            self.transition(AgentState::Assistant);
            if let Err(problem) = check_invariants(&self.run_messages) {
                tracing::error!(%problem, "history invariant broken before a request; cleaning");
                run_cleanup_loop(&mut self.run_messages);
            }
            let client = self.agent.clients.get().map_err(Interrupt::Failed)?;
            let request = ModelRequest {
                model: options.provider_model.clone(),
                system: options.system_prompt.clone(),
                messages: self.run_messages.clone(),
                tools: self.agent.tools.specs(),
                max_output_tokens: options.max_output_tokens,
                temperature: None,
                reasoning: options.reasoning_effort.clone(),
            };
            let streamed = stream_response(
                client.as_ref(),
                request,
                &self.cancel,
                &self.agent.events,
                &mut self.shown,
            )
            .await
            .map_err(|stop| match stop {
                StreamStop::Cancelled => Interrupt::Cancelled,
                StreamStop::Failed(e) => Interrupt::Failed(e),
            })?;
            self.shown.clear();
            if let Some(reason) = self.process_node(streamed).await? {
                return Ok(reason);
            }
        }
    }

    /// Seed 000 §1.2 `process_node`: usage, thoughts, completion, tool dispatch, empty detection.
    /// Returns the finish reason when the request is over.
    async fn process_node(
        &mut self,
        streamed: crate::streaming::Streamed,
    ) -> Result<Option<FinishReason>, Interrupt> {
        let mut response = streamed.message;
        self.record_usage_and_thoughts(streamed.usage, &response);
        if streamed.completed {
            self.state.task_completed = true;
        }
        let mut calls: Vec<_> = response.tool_calls().cloned().collect();
        if calls.is_empty() {
            calls = self.fallback_calls(&mut response);
        }
        if response.is_empty_response() {
            self.handle_empty_response();
            self.transition(AgentState::Response);
            return Ok(None);
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
        self.run_messages.push(response);
        if calls.is_empty() {
            self.transition(AgentState::Response);
            let reason = if self.state.task_completed {
                FinishReason::Completed
            } else {
                FinishReason::Answered
            };
            return Ok(Some(reason));
        }
        self.transition(AgentState::ToolExecution);
        let answers = self.dispatcher().dispatch(&calls).await;
        self.run_messages.push(Message::request(answers));
        self.transition(AgentState::Response);
        if self.cancel.is_cancelled() {
            return Err(Interrupt::Cancelled);
        }
        Ok(self.state.task_completed.then_some(FinishReason::Completed))
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

    /// Tool calls written as text become structured calls in the response, so they pair with answers.
    fn fallback_calls(&self, response: &mut Message) -> Vec<tunacode_protocol::ToolCallPart> {
        let text = response.text();
        let found = parse_tool_calls_from_text(&text, |name| self.agent.tools.get(name).is_some());
        let mut calls = Vec::new();
        for (n, call) in found.into_iter().enumerate() {
            let id = format!("fallback_{}_{n}", self.request_id);
            // Malformed arguments stay text: dispatch answers the model with what is wrong.
            let args = match call.args {
                Ok(map) => serde_json::Value::Object(map),
                Err(raw) => serde_json::Value::String(raw),
            };
            let part = Part::tool_call(id, call.tool_name, args);
            if let Part::ToolCall(c) = &part {
                calls.push(c.clone());
            }
            response.parts.push(part);
        }
        if !calls.is_empty() {
            tracing::info!(count = calls.len(), "tool calls parsed from text");
        }
        calls
    }

    /// Seed 004 "Empty Response Recovery": a notice, and an intervention message to the model.
    fn handle_empty_response(&mut self) {
        let count = {
            let mut session = self.agent.session.lock();
            session.runtime.consecutive_empty_responses += 1;
            session.runtime.consecutive_empty_responses
        };
        self.agent.events.emit(AgentEvent::Notice {
            level: NoticeLevel::Warning,
            message: format!(
                "The model returned an empty response (iteration {}, {count} in a row); asking it to act.",
                self.iteration
            ),
        });
        let intervention = format!(
            "Your previous response was empty: no text and no tool call (iteration {}). The task is \
             still open:\n\n{}\n\nAct now: call a tool to make progress, or, if the task is complete, \
             reply starting with `{COMPLETION_MARKER}` followed by a summary. If you are blocked, say \
             exactly what blocks you.",
            self.iteration, self.message
        );
        self.add_user_prompt(intervention);
    }

    fn dispatcher(&self) -> ToolDispatcher {
        ToolDispatcher {
            tools: self.agent.tools.clone(),
            ctx: ToolContext {
                workspace: self.agent.workspace.clone(),
                cancel: self.cancel.clone(),
            },
            approver: self.agent.approver.clone(),
            events: self.agent.events.clone(),
            session: self.agent.session.clone(),
            max_parallel: self.agent.options.max_parallel,
            tool_max_retries: self.agent.options.tool_max_retries,
            no_approval: self.agent.no_approval(),
        }
    }

    fn transition(&mut self, to: AgentState) {
        if let Err(e) = self.state.transition_to(to) {
            tracing::error!(error = %e, "response state");
        }
    }

    /// Seed 000 §6.2: keep partial text as `[INTERRUPTED]`, cancel in-flight calls, clean dangling
    /// calls, persist and save; drop the cached client after an abort or a timeout.
    fn finish_interrupted(&mut self, interrupt: Interrupt) -> RequestError {
        let partial = std::mem::take(&mut self.shown);
        if !partial.trim().is_empty() {
            let text = format!("{partial}\n\n{INTERRUPTED_MARKER}");
            self.run_messages
                .push(Message::response(vec![Part::text(text)]));
        }
        {
            let mut session = self.agent.session.lock();
            let registry = &mut session.runtime.tool_registry;
            for id in registry.in_flight() {
                let _ = registry.cancel(&id, "request interrupted");
            }
        }
        run_cleanup_loop(&mut self.run_messages);
        self.persist();
        let cause = *self.cause.lock().unwrap_or_else(|p| p.into_inner());
        let error = match (interrupt, cause) {
            (Interrupt::Cancelled, Some(StopCause::Timeout)) => {
                let limit = self.agent.options.request_timeout.unwrap_or_default();
                self.agent.events.emit(AgentEvent::RequestTimedOut {
                    timeout_secs: limit.as_secs_f64(),
                });
                RequestError::TimedOut(limit)
            }
            (Interrupt::Cancelled, _) => {
                self.agent.events.emit(AgentEvent::RequestAborted {
                    partial_text: partial,
                });
                RequestError::Aborted
            }
            (Interrupt::Failed(e), _) => {
                self.agent.events.emit(AgentEvent::RequestFailed {
                    kind: e.kind().to_string(),
                    message: e.to_string(),
                });
                RequestError::Llm(e)
            }
        };
        if matches!(error, RequestError::Aborted | RequestError::TimedOut(_)) {
            self.agent.clients.invalidate();
        }
        match self.save() {
            Ok(()) => error,
            Err(store) => store,
        }
    }

    /// Seed 000 §3.4: the run's messages are authoritative; messages appended from outside during the
    /// run are kept after them.
    fn persist(&self) {
        let mut session = self.agent.session.lock();
        let external = session
            .messages
            .get(self.baseline..)
            .unwrap_or_default()
            .to_vec();
        let mut messages = self.run_messages.clone();
        messages.extend(external);
        session.messages = messages;
        session.update_token_count();
    }

    fn save(&self) -> Result<(), RequestError> {
        let Some(store) = &self.agent.store else {
            return Ok(());
        };
        let file = self.agent.session.lock().to_file();
        store.save(&file)?;
        Ok(())
    }
}

/// The first 8 hex chars of a UUID4 (seed 000 §3.2).
pub(crate) fn new_request_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..8].to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn request_ids_are_8_hex_chars_and_differ() {
        let a = super::new_request_id();
        assert_eq!(a.len(), 8);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, super::new_request_id());
    }
}
