//! [`RequestRun`]: one request through the loop of seed 000 §2 and seed 001's Request Loop Contract:
//! initialize (request id, runtime reset, original query) → prepare history → iterate (stream, process
//! the node, dispatch tools, detect empty responses and the completion marker, steer with
//! self-evaluation and the no-progress alert, handle `max_iterations`) → persist (run messages plus
//! messages appended from outside) → save. Abort, timeout and failure keep partial text as
//! `[INTERRUPTED]`, cancel in-flight tools, clean dangling calls, save.
//!
//! `node.rs` processes one response, `limit.rs` handles the iteration limit, `finish.rs` interruption
//! and persistence. Parts that decide on their own state are types of their own the run owns and
//! tells what changed: the [`Recorder`] keeps the session's journal up with the run's messages
//! (`recorder.rs`), the [`ContextMeter`] knows the request's size between calls and when pruning is
//! worth trying (`meter.rs`), [`Progress`] counts iterations without a tool call (`progress.rs`), the
//! [`UndoPoint`] records the workspace once before the first change (`undo_point.rs`), and
//! [`Iterations`] holds the count against its limit (`iterations.rs`); the [`RunHistory`] is the
//! request's own history with its checks, call ids and serialized messages (`run_history.rs`).

mod context;
mod finish;
mod iterations;
mod journal;
mod limit;
mod meter;
mod node;
mod progress;
mod recorder;
mod run_history;
pub(crate) mod run_journal;
mod supervise;
mod undo_point;

use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;
use tunacode_llm::{LlmError, ModelRequest};
use tunacode_protocol::{AgentEvent, FinishReason, Message, NoticeLevel, ToolSpec};
use tunacode_tools::{ToolKind, ToolSet};

use crate::agent::{Agent, RunOutcome};
use crate::compaction::fixed_tokens;
use crate::error::RequestError;
use crate::guidance::{SELF_EVALUATION_FROM, self_evaluation_prompt};
use crate::history::prepare_history;
use crate::plan_tools::{ExitPlanMode, PresentPlan};
use crate::response_state::{AgentState, ResponseState};
use crate::streaming::{StreamStop, Streamed, stream_response};
use iterations::Iterations;
use meter::ContextMeter;
use progress::Progress;
use recorder::Recorder;
use run_history::RunHistory;
use undo_point::UndoPoint;

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
    /// The request's own history, shared with each model call.
    history: RunHistory,
    state: ResponseState,
    /// Text the user saw of the response being streamed.
    shown: String,
    last_text: String,
    /// The iteration count against its limit.
    iterations: Iterations,
    /// Whether the run gets anywhere (iterations without tool calls), for the guidance.
    progress: Progress,
    /// A text shown instead of nothing when the request ends without an answer.
    fallback: Option<String>,
    /// Records the run's messages in the session's journal as they complete.
    recorder: Recorder,
    /// The prepared history differs from the session file (or there is no file): save it first.
    checkpoint_needed: bool,
    /// Records the workspace for undo before this request's first change.
    undo_point: UndoPoint,
    /// What is known of the request's size between calls.
    meter: ContextMeter,
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
            history: RunHistory::default(),
            state: ResponseState::new(),
            shown: String::new(),
            last_text: String::new(),
            iterations: Iterations::new(agent.options.max_iterations),
            progress: Progress::default(),
            fallback: None,
            recorder: Recorder::default(),
            checkpoint_needed: false,
            undo_point: UndoPoint::default(),
            meter: ContextMeter::default(),
        }
    }

    pub(crate) async fn run(mut self) -> Result<RunOutcome, RequestError> {
        self.initialize();
        if self.checkpoint_needed
            && let Err(e) = self.save().await
        {
            self.agent.events.emit(AgentEvent::RequestFailed {
                kind: e.kind().to_string(),
                message: e.to_string(),
            });
            return Err(e);
        }
        let result = self.iterate().await;
        match result {
            Ok(reason) => {
                self.persist();
                self.save().await?;
                let response = self
                    .fallback
                    .clone()
                    .unwrap_or_else(|| self.last_text.clone());
                self.agent.events.emit(AgentEvent::RequestFinished {
                    reason,
                    iterations: self.iterations.count(),
                    response: response.clone(),
                });
                Ok(RunOutcome {
                    reason,
                    iterations: self.iterations.count(),
                    response,
                    request_id: self.request_id.clone(),
                    model_stop: self.last_finish_reason(),
                })
            }
            Err(interrupt) => Err(self.finish_interrupted(interrupt).await),
        }
    }

    /// `/compact`: prepares the history as a request would, compacts it, and saves the session.
    pub(crate) async fn run_compaction(
        mut self,
        focus: Option<String>,
    ) -> Result<RunOutcome, RequestError> {
        self.initialize();
        if self.checkpoint_needed {
            self.save().await?;
        }
        let (_, _, fixed) = self.fixed_parts();
        match self.compact(focus.as_deref(), fixed).await {
            Ok(done) => {
                self.persist();
                self.save().await?;
                let response = if done {
                    "The older history was summarized.".to_string()
                } else {
                    "Nothing to compact yet.".to_string()
                };
                self.agent.events.emit(AgentEvent::RequestFinished {
                    reason: FinishReason::Compacted,
                    iterations: 0,
                    response: response.clone(),
                });
                Ok(RunOutcome {
                    reason: FinishReason::Compacted,
                    iterations: 0,
                    response,
                    request_id: self.request_id.clone(),
                    model_stop: None,
                })
            }
            Err(interrupt) => Err(self.finish_interrupted(interrupt).await),
        }
    }

    /// The provider's finish reason of the session's last model response.
    fn last_finish_reason(&self) -> Option<String> {
        let session = self.agent.session.lock();
        session
            .messages
            .iter()
            .rev()
            .find(|m| m.kind == tunacode_protocol::MessageKind::Response)
            .and_then(|m| m.extra.get("finish_reason"))
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
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
        session.runtime.plan_awaiting_approval = None;
        session.task.original_query = self.message.clone();
        session.model = self.agent.options.model.clone();
        let prepared = prepare_history(&session.messages, &self.agent.options.prune);
        // The journal indexes the prepared history: the file must hold exactly it.
        self.checkpoint_needed = session.journal_base.is_none() || prepared != session.messages;
        if self.checkpoint_needed {
            session.messages = prepared.clone();
        }
        self.history = RunHistory::prepared(prepared, session.messages.len());
        let journal = self.agent.store.as_ref().map(|store| {
            run_journal::RunJournal::new(store.journal(&session.project_id, &session.id))
        });
        self.recorder = Recorder::new(journal, self.history.messages().len());
        let session_id = session.id.clone();
        drop(session);
        if !self.message.is_empty() {
            self.add_user_prompt(self.message.clone());
        }
        tracing::info!(request_id = %self.request_id, "request started");
        self.agent.events.emit(AgentEvent::RequestStarted {
            request_id: self.request_id.clone(),
            model: self.agent.options.model.clone(),
            session_id,
        });
    }

    /// Adds a user prompt, joining a trailing request so requests never follow each other.
    fn add_user_prompt(&mut self, text: String) {
        if let Some(changed) = self.history.add_user_prompt(text) {
            self.journal_touch(changed);
        }
    }

    /// The run's history, to change it (copied only if a model request still holds it).
    fn history_mut(&mut self) -> &mut Vec<Message> {
        self.history.edit()
    }

    /// Checks the invariants of what was added since the last check; a broken history is cleaned
    /// and written again.
    fn check_new_messages(&mut self) {
        if self.history.check_new() {
            self.journal_touch(0);
        }
    }

    async fn iterate(&mut self) -> Result<FinishReason, Interrupt> {
        loop {
            if self.iterations.at_limit() {
                if let Some(reason) = self.handle_iteration_limit().await? {
                    return Ok(reason);
                }
                continue;
            }
            let iteration = self.iterations.start_next();
            {
                let mut session = self.agent.session.lock();
                session.runtime.current_iteration = iteration;
                session.runtime.iteration_count = iteration;
            }
            self.agent.events.emit(AgentEvent::IterationStarted {
                iteration,
                max_iterations: self.iterations.limit(),
            });
            self.transition(AgentState::Assistant);
            self.check_new_messages();
            let streamed = self.call_model().await?;
            if let Some(reason) = self.process_node(streamed).await? {
                return Ok(reason);
            }
        }
    }

    /// One model call: compacted first when the request would pass the window's threshold, durable
    /// before it is sent, compacted and retried once when the provider says the context is too long.
    async fn call_model(&mut self) -> Result<Streamed, Interrupt> {
        let (system, tools, fixed) = self.fixed_parts();
        self.prune_if_worth(fixed);
        self.compact_if_needed(fixed).await?;
        let mut request = self.model_request(system, tools);
        self.agent.events.emit(AgentEvent::ContextUsed {
            tokens: self.next_request_tokens(fixed),
            window: self.agent.options.context.window,
        });
        let mut retried = false;
        loop {
            // Whatever this call carries is durable before it is sent.
            self.journal_flush().await;
            let client = self
                .agent
                .clients
                .get(&self.agent.provider)
                .map_err(Interrupt::Failed)?;
            let result = stream_response(
                client.as_ref(),
                request,
                &self.cancel,
                &self.agent.events,
                &mut self.shown,
            )
            .await;
            match result {
                Ok(streamed) => {
                    self.shown.clear();
                    return Ok(streamed);
                }
                Err(StreamStop::Cancelled) => return Err(Interrupt::Cancelled),
                Err(StreamStop::Failed(LlmError::ContextOverflow { .. }))
                    if !retried && self.shown.is_empty() && self.compact(None, fixed).await? =>
                {
                    retried = true;
                    let (system, tools, _) = self.fixed_parts();
                    request = self.model_request(system, tools);
                }
                Err(StreamStop::Failed(e)) => return Err(Interrupt::Failed(e)),
            }
        }
    }

    /// The tools offered now: all of them, or in plan mode the read-only ones and the plan tools; none
    /// for the final summary.
    fn offered_tools(&self) -> ToolSet {
        if self.iterations.summarizing() {
            return ToolSet::new();
        }
        let all = self.agent.current_tools();
        if !self.agent.session.lock().plan_mode {
            return all;
        }
        let mut tools = all.filtered(|t| t.kind() == ToolKind::ReadOnly);
        tools.add(Arc::new(PresentPlan {
            approver: self.agent.approver.clone(),
            session: self.agent.session.clone(),
            events: self.agent.events.clone(),
        }));
        tools.add(Arc::new(ExitPlanMode {
            session: self.agent.session.clone(),
            events: self.agent.events.clone(),
        }));
        tools
    }

    /// The system prompt for this call: the composed prompt, plus plan mode and the current todos.
    /// What every request of this iteration carries besides the history: the system prompt, the
    /// offered tools' specs, and their token estimate (small: the estimate loads no tokenizer).
    fn fixed_parts(&self) -> (String, Vec<ToolSpec>, u64) {
        let system = self.system_prompt();
        let tools = self.offered_tools().specs();
        let fixed = fixed_tokens(&system, &tools, crate::tokens::TokenCounter::Estimate);
        (system, tools, fixed)
    }

    fn system_prompt(&self) -> String {
        let mut system = self.agent.options.system_prompt.clone();
        let session = self.agent.session.lock();
        if session.plan_mode {
            system.push_str(PLAN_MODE_PROMPT);
        }
        if let Some(todos) = session.todos.render() {
            system.push_str(&format!("\n\n# Current todos\n{todos}\n"));
        }
        system
    }

    /// The request for this iteration. From the third iteration on (while the task is open) the last
    /// request also asks the model to assess its progress (seed 003 §7): in the same call, not stored.
    fn model_request(&self, system: String, tools: Vec<ToolSpec>) -> ModelRequest {
        let options = &self.agent.options;
        let nudge = (options.guidance.self_evaluation
            && self.iterations.count() >= SELF_EVALUATION_FROM
            && !self.state.task_completed
            && !self.iterations.summarizing()
            && self
                .history
                .messages()
                .last()
                .is_some_and(Message::is_request))
        .then(self_evaluation_prompt);
        if nudge.is_some() && options.guidance.show_thoughts {
            {
                self.agent.events.emit(AgentEvent::Notice {
                    level: NoticeLevel::Info,
                    message: "Self-evaluation: asking the agent whether the task is complete."
                        .into(),
                });
            }
        }
        ModelRequest {
            model: options.provider_model.clone(),
            system,
            messages: self.history.messages().clone(),
            nudge,
            tools,
            max_output_tokens: options.max_output_tokens,
            temperature: None,
            reasoning: options.reasoning_effort.clone(),
            cache: Some(self.history.cache()),
        }
    }

    fn transition(&mut self, to: AgentState) {
        if let Err(e) = self.state.transition_to(to) {
            tracing::error!(error = %e, "response state");
        }
    }
}

/// Added to the system prompt in plan mode.
const PLAN_MODE_PROMPT: &str = "\n\n# Plan mode\nYou are in plan mode: investigate with the read-only \
    tools, then call `present_plan` with a complete implementation plan in markdown. Do not try to write \
    files or run commands: they are refused until the user approves the plan. Call `exit_plan_mode` if the \
    task needs no plan.";

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
