//! The runtime's events as `session/update`s: the answer and thoughts as chunks, tool calls and their
//! results (diffs for edits, output for commands), the todo list as the plan, usage, mode changes,
//! and each request's end as its prompt's stop reason.

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    AvailableCommandsUpdate, ContentBlock, ContentChunk, Cost, CurrentModeUpdate, NoticeSeverity,
    Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus, SessionInfoUpdate, SessionUpdate,
    TextContent, ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
    UsageUpdate,
};
use tunacode_core::RuntimeEvent;
use tunacode_protocol::{AgentEvent, NoticeLevel, TodoItem, TodoStatus, ToolStatus};

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
            RuntimeEvent::QuestionClosed { id } => self.on_question_closed(&id),
            RuntimeEvent::RequestEnded(end) => self.on_request_ended(&end),
            RuntimeEvent::ModelChanged(model) => self.on_model_changed(model.model),
            RuntimeEvent::CustomCommands(commands) => self.send(
                SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(
                    available_commands(&commands),
                )),
            ),
            RuntimeEvent::Context(b) => self.on_reply(ReplyKind::Context, b.render()),
            RuntimeEvent::Permissions(text) => self.on_reply(ReplyKind::Permissions, text),
            RuntimeEvent::ProjectFiles { text, .. } => self.on_reply(ReplyKind::ProjectFiles, text),
            RuntimeEvent::ProjectFilePending(pending) => {
                self.notice(NoticeSeverity::Warning, pending.notice())
            }
            RuntimeEvent::Rewound(_)
            | RuntimeEvent::Turns(_)
            | RuntimeEvent::Exported { .. }
            | RuntimeEvent::Forked(_) => self.on_tree_event(event),
            // Shown when `/budget` asked; the one sent after each request is not news.
            RuntimeEvent::Budget(view) => self.on_budget(view),
            RuntimeEvent::McpServers(servers) => self.on_reply(ReplyKind::Mcp, mcp_list(&servers)),
            RuntimeEvent::McpServer(status) => match status.state.error() {
                Some(error) => self.notice(
                    NoticeSeverity::Warning,
                    format!("MCP server `{}` failed: {error}", status.name),
                ),
                None => Ok(()),
            },
            RuntimeEvent::OpFailed(failure) => self.on_op_failed(failure),
            RuntimeEvent::Subagent(update) => self.on_subagent(*update),
            RuntimeEvent::ShellFinished { output, .. } => self.say(output),
            RuntimeEvent::UserMessage { text, .. } => self.on_first_message(&text),
            // ACP has no `!` commands of its own; a shell op's end says it all. A refused key is
            // said by the request's own error (an editor has no key prompt).
            RuntimeEvent::SessionOpened(_)
            | RuntimeEvent::KeyRejected { .. }
            | RuntimeEvent::ServerModels { .. }
            | RuntimeEvent::ShellOutput { .. }
            | RuntimeEvent::Queued { .. }
            | RuntimeEvent::YoloChanged { .. }
            | RuntimeEvent::SessionList { .. }
            | RuntimeEvent::McpProjectPending { .. }
            // An editor's runtime is launched without a setup phase.
            | RuntimeEvent::SetupNeeded(_)
            | RuntimeEvent::SetupChecked(_)
            | RuntimeEvent::Stopped => Ok(()),
        }
    }

    /// Handles one engine event.
    async fn on_agent(&mut self, event: AgentEvent) -> Result<(), Error> {
        match event {
            AgentEvent::TextDelta { text } => self.say(text),
            AgentEvent::ThinkingDelta { text } => self.send(SessionUpdate::AgentThoughtChunk(
                ContentChunk::new(ContentBlock::Text(TextContent::new(text))),
            )),
            AgentEvent::FallbackResponse { text } => self.say(text),
            event @ (AgentEvent::ToolCallStarted { .. } | AgentEvent::ToolCallFinished { .. }) => {
                self.on_tool_event(event).await
            }
            AgentEvent::ToolOutput {
                tool_call_id, text, ..
            } => self.on_tool_output(tool_call_id, &text),
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
            } => {
                self.compaction_said = true;
                self.say(format!(
                    "Compacted {compacted_messages} messages: about {tokens_before} → \
                     {tokens_after} tokens."
                ))
            }
            AgentEvent::CheckFinished { phase, check } => self.on_check(phase, &check),
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

    /// A tool call started or ended.
    async fn on_tool_event(&mut self, event: AgentEvent) -> Result<(), Error> {
        match event {
            AgentEvent::ToolCallStarted {
                tool_call_id,
                tool_name,
                args,
                kind,
            } => self.announce(&tool_call_id, &tool_name, &args, Some(kind)),
            AgentEvent::ToolCallFinished {
                tool_call_id,
                tool_name,
                args,
                result,
                status,
                diff,
                ..
            } => {
                if !self.announced.contains(&tool_call_id) {
                    self.announce(&tool_call_id, &tool_name, &args, None)?;
                }
                self.announced.remove(&tool_call_id);
                self.live_output.remove(&tool_call_id);
                self.on_tool_finished(&tool_call_id, &tool_name, result, status, diff)
                    .await
            }
            _ => Ok(()),
        }
    }

    /// A running command printed `text`: the call's content becomes everything printed so far (an
    /// update replaces the content), the tail kept when it grows long.
    pub(crate) fn on_tool_output(&mut self, id: String, text: &str) -> Result<(), Error> {
        /// How much of a running command's output the editor is shown.
        const SHOWN: usize = 16 * 1024;
        let so_far = self.live_output.entry(id.clone()).or_default();
        so_far.push_str(text);
        tunacode_protocol::keep_tail(so_far, SHOWN);
        let fields = ToolCallUpdateFields::new().content(vec![text_content(so_far.clone())]);
        self.send(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
            id, fields,
        )))
    }

    /// The session's first message titles it (its first line, as the session list shows it).
    fn on_first_message(&mut self, text: &str) -> Result<(), Error> {
        if std::mem::replace(&mut self.titled, true) {
            return Ok(());
        }
        let title: String = text.lines().next().unwrap_or("").chars().take(60).collect();
        self.send(SessionUpdate::SessionInfoUpdate(
            SessionInfoUpdate::new().title(title),
        ))
    }

    /// Announces a tool call (running: a question about it sets it pending while it is asked).
    fn announce(
        &mut self,
        id: &str,
        tool: &str,
        args: &serde_json::Value,
        can: Option<tunacode_protocol::ToolKind>,
    ) -> Result<(), Error> {
        self.announced.insert(id.to_string());
        let call = tool_calls::announce(id, tool, args, can, &self.root)
            .status(ToolCallStatus::InProgress);
        self.send(SessionUpdate::ToolCall(call))
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
        let before = self.mode;
        if active {
            self.mode = PLAN_MODE;
        } else if self.mode == PLAN_MODE {
            self.leave_plan_mode();
        }
        if self.mode == before {
            return Ok(());
        }
        self.send(SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(
            self.mode.to_string(),
        )))
    }
}

/// A tool's result as its call shows it: a command's output as a block, other results cut short.
pub(crate) fn shown_output(tool: &str, result: &str) -> String {
    let mut text: String = result.chars().take(MAX_SHOWN_OUTPUT).collect();
    if text.len() < result.len() {
        text.push_str("\n…");
    }
    match tool_calls::kind(tool, None) {
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

/// The MCP servers as `/mcp` lists them.
fn mcp_list(servers: &[tunacode_protocol::ServerStatus]) -> String {
    let text = servers
        .iter()
        .map(|s| format!("- {}: {}", s.name, tunacode_core::mcp::describe_state(s)))
        .collect::<Vec<_>>()
        .join("\n");
    if text.is_empty() {
        "No MCP servers.".into()
    } else {
        text
    }
}
