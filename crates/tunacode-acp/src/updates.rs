//! The runtime's events as `session/update`s: the answer and thoughts as chunks, tool calls and their
//! results (diffs for edits, output for commands), the todo list as the plan, usage, mode changes,
//! and each request's end as its prompt's stop reason.

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    AvailableCommandsUpdate, ContentBlock, ContentChunk, Cost, CurrentModeUpdate, NoticeSeverity,
    Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus, PromptResponse, SessionUpdate, StopReason,
    TextContent, ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
    UsageUpdate,
};
use tunacode_core::{RequestEnd, RequestError, RuntimeEvent};
use tunacode_protocol::{AgentEvent, FinishReason, NoticeLevel, TodoItem, TodoStatus, ToolStatus};

use crate::diffs::{Side, diff_content, text_content};
use crate::modes::PLAN_MODE;
use crate::prompt::{ReplyKind, available_commands};
use crate::session::Session;
use crate::tool_calls;

/// Most characters of a read or search result shown in its tool call.
const MAX_SHOWN_OUTPUT: usize = 8_000;

impl Session {
    /// Handles one runtime event.
    pub(crate) async fn on_event(&mut self, event: RuntimeEvent) -> Result<(), Error> {
        match event {
            RuntimeEvent::Agent(event) => self.on_agent(event).await,
            RuntimeEvent::Question(question) => self.ask(question).await,
            RuntimeEvent::QuestionClosed { id } => {
                self.open_questions.remove(&id);
                Ok(())
            }
            RuntimeEvent::UserMessage { .. } => {
                self.request_running = true;
                Ok(())
            }
            RuntimeEvent::RequestEnded(end) => self.on_request_ended(&end),
            RuntimeEvent::ModelChanged(model) => self.on_model_changed(model.model),
            RuntimeEvent::CustomCommands(commands) => {
                self.send(SessionUpdate::AvailableCommandsUpdate(
                    AvailableCommandsUpdate::new(available_commands(&commands)),
                ))
            }
            RuntimeEvent::Context(text) => self.on_reply(ReplyKind::Context, text),
            RuntimeEvent::Permissions(text) => self.on_reply(ReplyKind::Permissions, text),
            RuntimeEvent::Undone(undone) => self.on_reply(
                ReplyKind::Undone,
                tunacode_core::runtime::describe_undo(&undone),
            ),
            RuntimeEvent::McpServers(servers) => {
                let text = servers
                    .iter()
                    .map(|s| format!("- {}: {}", s.name, tunacode_core::mcp::describe_state(s)))
                    .collect::<Vec<_>>()
                    .join("\n");
                let text = if text.is_empty() {
                    "No MCP servers.".into()
                } else {
                    text
                };
                self.on_reply(ReplyKind::Mcp, text)
            }
            RuntimeEvent::McpServer(status) => match status.state.error() {
                Some(error) => self.notice(
                    NoticeSeverity::Warning,
                    format!("MCP server `{}` failed: {error}", status.name),
                ),
                None => Ok(()),
            },
            RuntimeEvent::OpFailed(failure) => self.on_op_failed(failure.to_string()),
            RuntimeEvent::ShellFinished { output, .. } => self.say(output),
            RuntimeEvent::SessionOpened(_)
            | RuntimeEvent::Queued { .. }
            | RuntimeEvent::YoloChanged { .. }
            | RuntimeEvent::SessionList { .. }
            | RuntimeEvent::McpProjectPending { .. }
            | RuntimeEvent::Stopped => Ok(()),
        }
    }

    /// Handles one engine event.
    async fn on_agent(&mut self, event: AgentEvent) -> Result<(), Error> {
        match event {
            AgentEvent::RequestStarted { .. } => {
                self.request_running = true;
                Ok(())
            }
            AgentEvent::TextDelta { text } => self.say(text),
            AgentEvent::ThinkingDelta { text } => self.send(SessionUpdate::AgentThoughtChunk(
                ContentChunk::new(ContentBlock::Text(TextContent::new(text))),
            )),
            AgentEvent::FallbackResponse { text } => self.say(text),
            AgentEvent::ToolCallStarted {
                tool_call_id,
                tool_name,
                args,
            } => self.send(SessionUpdate::ToolCall(tool_calls::announce(
                &tool_call_id,
                &tool_name,
                &args,
                &self.root,
            ))),
            AgentEvent::ToolCallFinished {
                tool_call_id,
                tool_name,
                result,
                status,
                diff,
                ..
            } => {
                self.on_tool_finished(&tool_call_id, &tool_name, result, status, diff)
                    .await
            }
            AgentEvent::TodosUpdated { items } => self.send(SessionUpdate::Plan(plan(&items))),
            AgentEvent::PlanModeChanged { active } => self.on_plan_mode(active),
            AgentEvent::PlanPresented { plan } => self.say(format!("\n\n{plan}\n")),
            AgentEvent::ContextUsed {
                tokens,
                window: Some(window),
            } => self.send(SessionUpdate::UsageUpdate(
                UsageUpdate::new(tokens, window).cost(Cost::new(self.cost, "USD")),
            )),
            AgentEvent::UsageUpdated { session_total, .. } => {
                self.cost = session_total.cost;
                Ok(())
            }
            AgentEvent::ContextCompacted {
                tokens_before,
                tokens_after,
                compacted_messages,
            } => self.say(format!(
                "Compacted {compacted_messages} messages: about {tokens_before} → {tokens_after} \
                 tokens."
            )),
            AgentEvent::Notice { level, message } => {
                let severity = match level {
                    NoticeLevel::Info => NoticeSeverity::Info,
                    NoticeLevel::Warning => NoticeSeverity::Warning,
                };
                self.notice(severity, message)
            }
            _ => Ok(()),
        }
    }

    /// A tool call ended: its status, and what it did (an edit's diff, a command's output, a read's
    /// text).
    async fn on_tool_finished(
        &mut self,
        id: &str,
        tool: &str,
        result: String,
        status: ToolStatus,
        diff: Option<String>,
    ) -> Result<(), Error> {
        let status = match status {
            ToolStatus::Completed => ToolCallStatus::Completed,
            ToolStatus::Failed | ToolStatus::Cancelled => ToolCallStatus::Failed,
        };
        let mut content: Vec<ToolCallContent> = match &diff {
            Some(diff) if status == ToolCallStatus::Completed => {
                diff_content(diff, Side::After, &self.root, self.files.as_ref()).await
            }
            _ => Vec::new(),
        };
        if content.is_empty() || status != ToolCallStatus::Completed {
            content.push(text_content(shown_output(tool, &result)));
        }
        let fields = ToolCallUpdateFields::new()
            .status(status)
            .content(content)
            .raw_output(serde_json::Value::String(result));
        self.send(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
            id.to_string(),
            fields,
        )))
    }

    /// Plan mode switched (by the editor, or by an approved plan): the editor's mode follows.
    fn on_plan_mode(&mut self, active: bool) -> Result<(), Error> {
        let mode = if active {
            PLAN_MODE
        } else {
            self.mode_before_plan
        };
        if mode == self.mode {
            return Ok(());
        }
        self.mode = mode;
        self.send(SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(
            mode.to_string(),
        )))
    }

    /// A request ended: its prompt gets the stop reason (`cancelled` after a cancel, whatever the
    /// outcome; `max_turn_requests` at the iteration limit); a failure is the prompt's error.
    fn on_request_ended(&mut self, end: &RequestEnd) -> Result<(), Error> {
        self.request_running = false;
        let Some(responder) = self.requests.pop_front() else {
            return Ok(());
        };
        let cancelled = std::mem::take(&mut self.cancelled);
        let reason = match &end.outcome {
            _ if cancelled => StopReason::Cancelled,
            Ok(outcome) if outcome.reason == FinishReason::IterationLimit => {
                StopReason::MaxTurnRequests
            }
            Ok(outcome) if outcome.refused() => StopReason::Refusal,
            Ok(_) => StopReason::EndTurn,
            Err(RequestError::Aborted) => StopReason::Cancelled,
            Err(e) => return responder.respond_with_error(Error::new(-32603, e.to_string())),
        };
        responder.respond(PromptResponse::new(reason))
    }
}

/// A tool's result as its call shows it: a command's output as a block, other results cut short.
fn shown_output(tool: &str, result: &str) -> String {
    let mut text: String = result.chars().take(MAX_SHOWN_OUTPUT).collect();
    if text.len() < result.len() {
        text.push_str("\n…");
    }
    match tool_calls::kind(tool) {
        agent_client_protocol::v1::schema::ToolKind::Execute
        | agent_client_protocol::v1::schema::ToolKind::Read
        | agent_client_protocol::v1::schema::ToolKind::Search => format!("```\n{text}\n```"),
        _ => text,
    }
}

/// The todo list as the editor's plan.
pub(crate) fn plan(items: &[TodoItem]) -> Plan {
    Plan::new(
        items
            .iter()
            .map(|item| {
                let status = match item.status {
                    TodoStatus::Pending => PlanEntryStatus::Pending,
                    TodoStatus::InProgress => PlanEntryStatus::InProgress,
                    TodoStatus::Completed => PlanEntryStatus::Completed,
                };
                PlanEntry::new(item.content.clone(), PlanEntryPriority::Medium, status)
            })
            .collect(),
    )
}
