//! [`OutputEvent`]: every line type of `tunacode run --output stream-json` but the `result` line.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::runtime::{RewindMode, SkippedRestore};
use crate::stream::values::{CheckOut, NoticeDetail, TodoOut, ToolUseOut, UndoneFile, UsageOut};

/// Every event type a script can see (the `result` line is [`crate::output::RunResult`]).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(missing_docs)] // Each field is documented in the README's table.
pub enum OutputEvent {
    Context(crate::runtime::ContextBreakdown),
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
        hunks: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        subagent: Option<crate::runtime::SubagentLabel>,
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
    BudgetRequested {
        request_id: String,
        scope: String,
        message: String,
        raise_to_usd: Option<f64>,
        raise_to_tokens: Option<u64>,
    },
    LoopRequested {
        request_id: String,
        repeated: String,
        iterations: u32,
    },
    QuestionClosed {
        request_id: String,
    },
    CheckFinished {
        phase: &'static str,
        #[serde(flatten)]
        check: CheckOut,
    },
    Notice {
        level: &'static str,
        message: String,
        #[serde(flatten, skip_serializing_if = "Option::is_none")]
        detail: Option<NoticeDetail>,
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
    Rewound {
        kind: String,
        prompt: usize,
        mode: RewindMode,
        text: String,
        files: Vec<UndoneFile>,
        kept: Vec<String>,
        skipped: Vec<SkippedRestore>,
        messages_dropped: usize,
        notes: Vec<String>,
    },
    Forked {
        session_id: String,
        parent: String,
        prompt: usize,
    },
    SubagentStarted {
        tool_call_id: String,
        agent_type: String,
        description: String,
        session_id: String,
        model: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        worktree: Option<String>,
    },
    SubagentFinished {
        tool_call_id: String,
        agent_type: String,
        session_id: String,
        status: crate::runtime::SubagentStatus,
        answer: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        files_read: Vec<String>,
        files_changed: Vec<String>,
        commands: Vec<String>,
        usage: UsageOut,
        duration_ms: u64,
        #[serde(skip_serializing_if = "String::is_empty")]
        diff: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        diff_outcome: Option<String>,
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
