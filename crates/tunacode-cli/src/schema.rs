//! The public stream-json output schema of `tunacode run --output stream-json`: its own stable types,
//! separate from the engine's internal events, so internal changes never break the scripts that read
//! it. Every line is an object with `schema_version` and `type`. Adding a type or a field is
//! compatible; renaming or removing one needs a new `SCHEMA_VERSION`.

use serde::Serialize;
use serde_json::Value;
use tunacode_protocol::{FinishReason, TodoItem, TodoStatus, Usage};

pub use crate::schema_map::from_runtime;

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
    ToolOutput {
        tool_call_id: String,
        stream: &'static str,
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

/// A file an undo put back.
#[derive(Debug, Serialize)]
#[allow(missing_docs)]
pub struct UndoneFile {
    pub path: String,
    pub how: String,
}
