//! The public stream-json output schema of `tunacode run --output stream-json`: its own stable types,
//! separate from the engine's internal events, so internal changes never break the scripts that read
//! it. Every line is an object with `schema_version` and `type`. Adding a type or a field is
//! compatible; renaming or removing one needs a new `SCHEMA_VERSION`.

use serde::Serialize;
use serde_json::Value;
use tunacode_core::mcp::{ServerState, ServerStatus};
use tunacode_core::{QuestionKind, RuntimeEvent};
use tunacode_protocol::{AgentEvent, FinishReason, TodoItem, TodoStatus, ToolStatus, Usage};

/// The version of this schema, on every line.
pub const SCHEMA_VERSION: u32 = 1;

/// One output line.
#[derive(Debug, Serialize)]
pub struct Line<T: Serialize> {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The event.
    #[serde(flatten)]
    pub event: T,
}

impl<T: Serialize> Line<T> {
    /// Wraps an event.
    pub fn new(event: T) -> Self {
        Line {
            schema_version: SCHEMA_VERSION,
            event,
        }
    }
}

/// Token usage as scripts see it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct UsageOut {
    /// Input tokens, cached ones included.
    pub request_tokens: u64,
    /// Output tokens, reasoning included.
    pub response_tokens: u64,
    /// Input tokens served from cache.
    pub cached_tokens: u64,
    /// Output tokens spent reasoning.
    pub reasoning_tokens: u64,
    /// US dollars.
    pub cost: f64,
    /// Share of the input tokens read from the provider's prompt cache (0 to 1).
    pub cache_hit_ratio: f64,
}

impl From<&Usage> for UsageOut {
    fn from(u: &Usage) -> Self {
        UsageOut {
            request_tokens: u.request_tokens,
            response_tokens: u.response_tokens,
            cached_tokens: u.cached_tokens,
            reasoning_tokens: u.reasoning_tokens,
            cost: u.cost,
            cache_hit_ratio: u.cache_hit_ratio(),
        }
    }
}

/// A todo item.
#[derive(Debug, Clone, Serialize)]
pub struct TodoOut {
    /// Its number.
    pub id: u32,
    /// What to do.
    pub content: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: &'static str,
}

impl From<&TodoItem> for TodoOut {
    fn from(t: &TodoItem) -> Self {
        TodoOut {
            id: t.id,
            content: t.content.clone(),
            status: match t.status {
                TodoStatus::Pending => "pending",
                TodoStatus::InProgress => "in_progress",
                TodoStatus::Completed => "completed",
            },
        }
    }
}

/// A tool's use count.
#[derive(Debug, Clone, Serialize)]
pub struct ToolUseOut {
    /// The tool.
    pub name: String,
    /// Calls made.
    pub count: u32,
}

/// Every event type a script can see (the `result` line is [`crate::output::RunResult`]).
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(missing_docs)] // Each field is documented in the README's table.
pub enum OutputEvent {
    SessionOpened {
        session_id: String,
        model: String,
        resumed: bool,
        message_count: usize,
    },
    UserMessage {
        text: String,
        attached: Vec<String>,
    },
    Queued {
        pending: usize,
    },
    RequestStarted {
        request_id: String,
        model: String,
        session_id: String,
    },
    IterationStarted {
        iteration: u32,
        max_iterations: u32,
    },
    TextDelta {
        text: String,
    },
    ThinkingDelta {
        text: String,
    },
    ToolBatchStarted {
        batch: u32,
        display: String,
        count: usize,
    },
    ToolCallStarted {
        tool_call_id: String,
        tool_name: String,
        args: Value,
    },
    ToolCallFinished {
        tool_call_id: String,
        tool_name: String,
        args: Value,
        result: String,
        duration_ms: u64,
        status: &'static str,
    },
    ApprovalRequested {
        request_id: String,
        tool_call_id: String,
        tool_name: String,
        args: Value,
        preview: Option<String>,
        reason: String,
        session_scope: String,
    },
    LimitChoiceRequested {
        request_id: String,
        iterations: u32,
        max_iterations: u32,
        summary: String,
    },
    PlanReviewRequested {
        request_id: String,
        plan: String,
    },
    QuestionClosed {
        request_id: String,
    },
    Notice {
        level: &'static str,
        message: String,
        #[serde(flatten, skip_serializing_if = "Option::is_none")]
        detail: Option<crate::schema_notice::NoticeDetail>,
    },
    UsageUpdated {
        last_call: UsageOut,
        session_total: UsageOut,
    },
    IterationLimitReached {
        iterations: u32,
        max_iterations: u32,
        tools_used: Vec<ToolUseOut>,
        original_query: String,
        summary: String,
    },
    FallbackResponse {
        text: String,
    },
    TodosUpdated {
        items: Vec<TodoOut>,
    },
    PlanModeChanged {
        active: bool,
    },
    PlanPresented {
        plan: String,
    },
    ContextUsed {
        tokens: u64,
        window: Option<u64>,
    },
    ContextCompacted {
        tokens_before: u64,
        tokens_after: u64,
        compacted_messages: usize,
    },
    RequestFinished {
        reason: &'static str,
        iterations: u32,
        response: String,
    },
    RequestAborted {
        partial_text: String,
    },
    RequestTimedOut {
        timeout_secs: f64,
    },
    RequestFailed {
        kind: String,
        message: String,
    },
    ModelChanged {
        model: String,
    },
    YoloChanged {
        on: bool,
    },
    ShellFinished {
        command: String,
        output: String,
    },
    Permissions {
        text: String,
    },
    Undone {
        request_id: String,
        files: Vec<UndoneFile>,
    },
    McpServer {
        name: String,
        state: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        protocol: Option<String>,
        tools: Vec<String>,
    },
    Error {
        message: String,
    },
}

/// The public name of a finish reason.
pub fn finish_reason(reason: FinishReason) -> &'static str {
    match reason {
        FinishReason::Completed => "completed",
        FinishReason::Answered => "answered",
        FinishReason::IterationLimit => "iteration_limit",
        FinishReason::PlanPresented => "plan_presented",
        FinishReason::Compacted => "compacted",
    }
}

fn tool_status(status: ToolStatus) -> &'static str {
    match status {
        ToolStatus::Completed => "completed",
        ToolStatus::Failed => "failed",
        ToolStatus::Cancelled => "cancelled",
    }
}

/// The public line for a runtime event (`None`: not shown; `RequestEnded` becomes the `result`).
pub fn from_runtime(event: &RuntimeEvent) -> Option<OutputEvent> {
    Some(match event {
        RuntimeEvent::Agent(e) => from_agent(e),
        RuntimeEvent::Question(q) => match &q.kind {
            QuestionKind::Approval(a) => OutputEvent::ApprovalRequested {
                request_id: q.id.clone(),
                tool_call_id: a.tool_call_id.clone(),
                tool_name: a.tool_name.clone(),
                args: a.args.clone(),
                preview: a.preview.clone(),
                reason: a.reason.clone(),
                session_scope: a.scope.to_string(),
            },
            QuestionKind::IterationLimit(r) => OutputEvent::LimitChoiceRequested {
                request_id: q.id.clone(),
                iterations: r.iterations,
                max_iterations: r.max_iterations,
                summary: r.summary.clone(),
            },
            QuestionKind::PlanReview { plan } => OutputEvent::PlanReviewRequested {
                request_id: q.id.clone(),
                plan: plan.clone(),
            },
        },
        RuntimeEvent::QuestionClosed { id } => OutputEvent::QuestionClosed {
            request_id: id.clone(),
        },
        RuntimeEvent::UserMessage { text, attached } => OutputEvent::UserMessage {
            text: text.clone(),
            attached: attached.clone(),
        },
        RuntimeEvent::Queued { pending } => OutputEvent::Queued { pending: *pending },
        RuntimeEvent::SessionOpened(view) => OutputEvent::SessionOpened {
            session_id: view.session_id.clone(),
            model: view.model.model.clone(),
            resumed: view.resumed,
            message_count: view.messages.len(),
        },
        RuntimeEvent::ModelChanged(m) => OutputEvent::ModelChanged {
            model: m.model.clone(),
        },
        RuntimeEvent::YoloChanged { on } => OutputEvent::YoloChanged { on: *on },
        RuntimeEvent::ShellFinished { command, output } => OutputEvent::ShellFinished {
            command: command.clone(),
            output: output.clone(),
        },
        RuntimeEvent::Permissions(text) => OutputEvent::Permissions { text: text.clone() },
        RuntimeEvent::OpFailed(failure) => OutputEvent::Error {
            message: failure.to_string(),
        },
        // Servers stop as the run ends, after its result line; that is not news to a script.
        RuntimeEvent::McpServer(status) if status.state == ServerState::Stopped => return None,
        RuntimeEvent::McpServer(status) => mcp_server(status),
        RuntimeEvent::McpProjectPending { file, servers } => {
            OutputEvent::notice("warning", crate::mcp_cmd::pending_notice(file, servers))
        }
        RuntimeEvent::McpServers(_)
        | RuntimeEvent::Context(_)
        | RuntimeEvent::CustomCommands(_) => {
            return None;
        }
        RuntimeEvent::Undone(undone) => OutputEvent::Undone {
            request_id: undone.request_id.clone(),
            files: undone
                .files
                .iter()
                .map(|(path, how)| UndoneFile {
                    path: path.clone(),
                    how,
                })
                .collect(),
        },
        RuntimeEvent::RequestEnded(_)
        | RuntimeEvent::SessionList { .. }
        | RuntimeEvent::Stopped => {
            return None;
        }
    })
}

/// A file an undo put back.
#[derive(Debug, Serialize)]
#[allow(missing_docs)]
pub struct UndoneFile {
    pub path: String,
    pub how: &'static str,
}

/// The public line for an MCP server's status.
fn mcp_server(status: &ServerStatus) -> OutputEvent {
    OutputEvent::McpServer {
        name: status.name.clone(),
        state: status.state.label(),
        error: status.state.error().map(str::to_string),
        protocol: status.protocol.clone(),
        tools: status.tools.clone(),
    }
}

/// The public line for an engine event.
pub fn from_agent(event: &AgentEvent) -> OutputEvent {
    match event.clone() {
        AgentEvent::RequestStarted {
            request_id,
            model,
            session_id,
        } => OutputEvent::RequestStarted {
            request_id,
            model,
            session_id,
        },
        AgentEvent::IterationStarted {
            iteration,
            max_iterations,
        } => OutputEvent::IterationStarted {
            iteration,
            max_iterations,
        },
        AgentEvent::TextDelta { text } => OutputEvent::TextDelta { text },
        AgentEvent::ThinkingDelta { text } => OutputEvent::ThinkingDelta { text },
        AgentEvent::ToolBatchStarted {
            batch,
            display,
            count,
        } => OutputEvent::ToolBatchStarted {
            batch,
            display,
            count,
        },
        AgentEvent::ToolCallStarted {
            tool_call_id,
            tool_name,
            args,
        } => OutputEvent::ToolCallStarted {
            tool_call_id,
            tool_name,
            args,
        },
        AgentEvent::ToolCallFinished {
            tool_call_id,
            tool_name,
            args,
            result,
            duration_ms,
            status,
            ..
        } => OutputEvent::ToolCallFinished {
            tool_call_id,
            tool_name,
            args,
            result,
            duration_ms,
            status: tool_status(status),
        },
        other => from_agent_rest(other),
    }
}

fn from_agent_rest(event: AgentEvent) -> OutputEvent {
    match event {
        AgentEvent::Notice { level, message } => {
            OutputEvent::notice(crate::schema_notice::level_name(level), message)
        }
        AgentEvent::UsageUpdated {
            last_call,
            session_total,
        } => OutputEvent::UsageUpdated {
            last_call: (&last_call).into(),
            session_total: (&session_total).into(),
        },
        AgentEvent::IterationLimitReached {
            iterations,
            max_iterations,
            tools_used,
            original_query,
            summary,
        } => OutputEvent::IterationLimitReached {
            iterations,
            max_iterations,
            tools_used: tools_used
                .into_iter()
                .map(|t| ToolUseOut {
                    name: t.name,
                    count: t.count,
                })
                .collect(),
            original_query,
            summary,
        },
        AgentEvent::FallbackResponse { text } => OutputEvent::FallbackResponse { text },
        AgentEvent::ContextUsed { tokens, window } => OutputEvent::ContextUsed { tokens, window },
        AgentEvent::ContextCompacted {
            tokens_before,
            tokens_after,
            compacted_messages,
        } => OutputEvent::ContextCompacted {
            tokens_before,
            tokens_after,
            compacted_messages,
        },
        AgentEvent::TodosUpdated { items } => OutputEvent::TodosUpdated {
            items: items.iter().map(TodoOut::from).collect(),
        },
        AgentEvent::PlanModeChanged { active } => OutputEvent::PlanModeChanged { active },
        AgentEvent::PlanPresented { plan } => OutputEvent::PlanPresented { plan },
        AgentEvent::RequestFinished {
            reason,
            iterations,
            response,
        } => OutputEvent::RequestFinished {
            reason: finish_reason(reason),
            iterations,
            response,
        },
        AgentEvent::RequestAborted { partial_text } => OutputEvent::RequestAborted { partial_text },
        AgentEvent::RequestTimedOut { timeout_secs } => {
            OutputEvent::RequestTimedOut { timeout_secs }
        }
        AgentEvent::RequestFailed { kind, message } => OutputEvent::RequestFailed { kind, message },
        // The first half is mapped by `from_agent`.
        other => from_agent(&other),
    }
}
