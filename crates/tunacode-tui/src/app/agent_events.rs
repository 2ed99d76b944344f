//! How the engine's events (streamed text and reasoning, tool calls, usage, plan mode, how a request
//! ended) change the transcript and the status line.

use std::time::Instant;

use serde_json::Value;
use tunacode_protocol::{AgentEvent, NoticeLevel, ToolStatus};

use crate::app::state::App;
use crate::app::status::Activity;
use crate::app::transcript::{CellKind, ToolCell};
use crate::render::StreamingMarkdown;

/// A finished tool call, as the transcript shows it.
struct Finished {
    id: String,
    name: String,
    args: Value,
    result: String,
    duration_ms: u64,
    status: ToolStatus,
    diff: Option<String>,
}

impl App {
    /// Applies one engine event.
    pub fn on_agent_event(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::RequestStarted { session_id, .. } => self.on_request_started(session_id),
            AgentEvent::IterationStarted { .. } => {
                self.view.status.set_activity(Activity::Thinking)
            }
            AgentEvent::TextDelta { text } => self.on_text(&text),
            AgentEvent::ThinkingDelta { text } => self.on_thinking(text),
            AgentEvent::ToolCallStarted {
                tool_call_id,
                tool_name,
                args,
                ..
            } => self.on_tool_started(tool_call_id, tool_name, args),
            AgentEvent::ToolCallFinished {
                tool_call_id,
                tool_name,
                args,
                result,
                duration_ms,
                status,
                diff,
            } => self.on_tool_finished(Finished {
                id: tool_call_id,
                name: tool_name,
                args,
                result,
                duration_ms,
                status,
                diff,
            }),
            AgentEvent::ToolOutput {
                tool_call_id, text, ..
            } => self.on_tool_output(&tool_call_id, &text),
            AgentEvent::Notice { level, message } => {
                self.view.transcript.push_notice(level, message)
            }
            AgentEvent::UsageUpdated {
                last_call,
                session_total,
            } => self.view.record_usage(&last_call, session_total),
            AgentEvent::FallbackResponse { text } => self.on_fallback_response(&text),
            AgentEvent::TodosUpdated { items } => self.view.todos = items,
            AgentEvent::PlanModeChanged { active } => self.on_plan_mode(active),
            AgentEvent::PlanPresented { plan } => self.on_plan_presented(&plan),
            AgentEvent::ContextUsed { tokens, window } => self.on_context_used(tokens, window),
            AgentEvent::ContextCompacted {
                tokens_before,
                tokens_after,
                compacted_messages,
            } => self.on_context_compacted(tokens_before, tokens_after, compacted_messages),
            AgentEvent::CheckFinished { phase, check } => self.on_check_finished(phase, &check),
            other => self.on_request_end_event(other),
        }
    }

    fn on_request_started(&mut self, session_id: String) {
        self.view.status.session_id = session_id;
        self.view.status.set_activity(Activity::Thinking);
    }

    /// The gauge shows the engine's own figure for the request being sent.
    fn on_context_used(&mut self, tokens: u64, window: Option<u64>) {
        self.view.status.context_used = tokens;
        if window.is_some() {
            self.view.status.context_window = window;
        }
    }

    /// A whole answer that was not streamed.
    fn on_fallback_response(&mut self, text: &str) {
        let mut md = StreamingMarkdown::new();
        md.push(text);
        self.view.transcript.push(CellKind::Assistant(md));
    }

    fn on_context_compacted(
        &mut self,
        tokens_before: u64,
        tokens_after: u64,
        compacted_messages: usize,
    ) {
        // Only a compaction the provider forced (it said the request was too long) can leave the
        // estimate as large as before: that is not called a success.
        let (level, shrank) = if tokens_after < tokens_before {
            (NoticeLevel::Info, "")
        } else {
            (NoticeLevel::Warning, " The estimate did not shrink.")
        };
        self.view.transcript.push(CellKind::Notice(
            level,
            format!(
                "Context compacted: {compacted_messages} older messages summarized (~{tokens_before} \
                 → ~{tokens_after} tokens). They stay in the session.{shrank}"
            ),
        ));
    }

    fn on_text(&mut self, text: &str) {
        self.view.status.set_activity(Activity::Writing);
        match self.view.transcript.open_answer() {
            Some(md) => md.push(text),
            None => {
                let mut md = StreamingMarkdown::new();
                md.push(text);
                self.view.transcript.push(CellKind::Assistant(md));
            }
        }
    }

    fn on_thinking(&mut self, text: String) {
        match self.view.transcript.cells.last_mut() {
            Some(cell) if matches!(cell.kind, CellKind::Thinking(_)) => {
                if let CellKind::Thinking(t) = &mut cell.kind {
                    t.push_str(&text);
                }
                cell.touch();
            }
            _ => self.view.transcript.push(CellKind::Thinking(text)),
        }
    }

    fn on_tool_started(&mut self, id: String, name: String, args: Value) {
        self.view.status.set_activity(Activity::Tool(name.clone()));
        self.view.transcript.push(CellKind::Tool(ToolCell {
            id,
            name,
            args,
            status: None,
            started: Instant::now(),
            duration_ms: None,
            result: String::new(),
            diff: None,
        }));
    }

    /// A running command printed `text`: shown in its cell until the call's result replaces it (the
    /// last 64 KiB kept).
    pub(super) fn on_tool_output(&mut self, id: &str, text: &str) {
        const KEPT: usize = 64 * 1024;
        let Some(cell) = self.view.transcript.tool_mut(id) else {
            return;
        };
        if let CellKind::Tool(t) = &mut cell.kind
            && t.status.is_none()
        {
            t.result.push_str(text);
            tunacode_protocol::keep_tail(&mut t.result, KEPT);
            cell.touch();
        }
    }

    fn on_tool_finished(&mut self, done: Finished) {
        let status = done.status;
        match self.view.transcript.tool_mut(&done.id) {
            Some(cell) => {
                if let CellKind::Tool(t) = &mut cell.kind {
                    t.status = Some(status);
                    t.duration_ms = Some(done.duration_ms);
                    t.result = done.result;
                    t.diff = done.diff;
                }
                cell.touch();
            }
            None => self.view.transcript.push(CellKind::Tool(ToolCell {
                id: done.id,
                name: done.name,
                args: done.args,
                status: Some(status),
                started: Instant::now(),
                duration_ms: Some(done.duration_ms),
                result: done.result,
                diff: done.diff,
            })),
        }
        if status != ToolStatus::Cancelled {
            // Another call of the batch may still run: the status line names it.
            self.resume_activity();
        }
    }

    /// The plan stays in the transcript, whether a dialog reviews it or `/yolo` approves it unseen.
    fn on_plan_presented(&mut self, plan: &str) {
        let mut md = StreamingMarkdown::new();
        md.push(&format!("**Plan presented**\n\n{plan}"));
        self.view.transcript.push(CellKind::Assistant(md));
    }

    fn on_plan_mode(&mut self, active: bool) {
        self.view.status.plan_mode = active;
        let text = if active {
            "Plan mode on: read-only until a plan is approved."
        } else {
            "Plan mode off: every tool is available."
        };
        self.view
            .transcript
            .push(CellKind::Notice(NoticeLevel::Info, text.into()));
    }

    /// How a request ended, as the engine tells it (the runtime's `RequestEnded` follows).
    fn on_request_end_event(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::RequestFinished { .. } => self.view.status.set_activity(Activity::Idle),
            AgentEvent::RequestAborted { partial_text } => {
                self.view.status.set_activity(Activity::Idle);
                let said = if partial_text.trim().is_empty() {
                    "Interrupted."
                } else {
                    "Interrupted. The partial answer is kept."
                };
                self.view
                    .transcript
                    .push(CellKind::Notice(NoticeLevel::Warning, said.into()));
            }
            AgentEvent::RequestTimedOut { timeout_secs } => {
                self.view.status.set_activity(Activity::Idle);
                self.view.transcript.push(CellKind::Error(format!(
                    "The request timed out after {timeout_secs}s."
                )));
            }
            AgentEvent::RequestFailed { message, .. } => {
                self.view.status.set_activity(Activity::Idle);
                self.view.transcript.push(CellKind::Error(message));
            }
            _ => {}
        }
    }
}
