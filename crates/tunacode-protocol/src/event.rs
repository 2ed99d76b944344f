//! The agent event stream: one enum in place of the original's five callbacks (seed 000 §5). The TUI,
//! `tunacode run` and the tests all consume the same stream; `--output stream-json` prints it one event
//! per line with a `type` tag.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::usage::Usage;

/// How a finished tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// It ran and returned a result.
    Completed,
    /// It failed, was refused, or its arguments were rejected.
    Failed,
    /// The user aborted it.
    Cancelled,
}

/// How loud a notice is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeLevel {
    /// For information.
    Info,
    /// Something went wrong but the request goes on.
    Warning,
}

/// Why a request finished normally.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// The model marked the task done with the completion marker.
    Completed,
    /// The model answered without calling further tools.
    Answered,
    /// `max_iterations` was reached before the task was done.
    IterationLimit,
    /// In plan mode, the model presented a plan that waits for the user's approval.
    PlanPresented,
    /// `/compact` summarized the older history (no model answer).
    Compacted,
    /// The model kept repeating itself after being told to change approach, and the request was
    /// stopped.
    LoopDetected,
}

/// Where a todo is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

/// One item of the agent's todo list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoItem {
    /// Its number (stable within the list).
    pub id: u32,
    /// What to do.
    pub content: String,
    /// Where it is.
    pub status: TodoStatus,
}

/// How often a tool was used in a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolUse {
    /// The tool.
    pub name: String,
    /// Calls made.
    pub count: u32,
}

/// A command's output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputStream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

impl OutputStream {
    /// `stdout` or `stderr`.
    pub fn name(self) -> &'static str {
        match self {
            OutputStream::Stdout => "stdout",
            OutputStream::Stderr => "stderr",
        }
    }
}

/// One thing that happened while the agent worked on a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// A request began.
    RequestStarted {
        /// 8 hex chars, for correlating logs.
        request_id: String,
        /// `provider:model`.
        model: String,
        /// The session the request belongs to.
        session_id: String,
    },
    /// An iteration (one model call) began.
    IterationStarted {
        /// 1-based.
        iteration: u32,
        /// The limit in force.
        max_iterations: u32,
    },
    /// Assistant text streamed (the completion marker already removed).
    TextDelta {
        /// The new text.
        text: String,
    },
    /// Reasoning text streamed.
    ThinkingDelta {
        /// The new text.
        text: String,
    },
    /// A batch of tool calls is about to run.
    ToolBatchStarted {
        /// Counts batches within the request, from 1.
        batch: u32,
        /// Up to a few tool names, with a suffix when truncated.
        display: String,
        /// How many calls the batch has.
        count: usize,
    },
    /// A tool call began executing.
    ToolCallStarted {
        /// The call's id.
        tool_call_id: String,
        /// The tool.
        tool_name: String,
        /// Its arguments.
        args: Value,
        /// What this call may do (reads, writes or runs programs), as the tool classified it.
        kind: crate::tool_kind::ToolKind,
    },
    /// A tool call ended.
    ToolCallFinished {
        /// The call's id.
        tool_call_id: String,
        /// The tool.
        tool_name: String,
        /// Its arguments.
        args: Value,
        /// What it returned (or the error).
        result: String,
        /// Wall time it ran.
        duration_ms: u64,
        /// How it ended.
        status: ToolStatus,
        /// A unified diff of the file change it made, for display.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        diff: Option<String>,
    },
    /// A running tool's output as it is produced (a command's stdout or stderr), in arrival order;
    /// bounded per call. The call's final result still carries its whole (capped) output.
    ToolOutput {
        /// The call's id.
        tool_call_id: String,
        /// Which stream.
        stream: OutputStream,
        /// The new text.
        text: String,
    },
    /// Something the user should know (an empty response, a retry, a refused command, …).
    Notice {
        /// How loud.
        level: NoticeLevel,
        /// The text.
        message: String,
    },
    /// A model call reported usage.
    UsageUpdated {
        /// This call.
        last_call: Usage,
        /// The session so far.
        session_total: Usage,
    },
    /// The iteration limit was reached; the user is asked how to go on (seed 004's clarification: the
    /// original query and the progress so far).
    IterationLimitReached {
        /// Iterations run.
        iterations: u32,
        /// The limit that was reached.
        max_iterations: u32,
        /// Tools used so far, by name.
        tools_used: Vec<ToolUse>,
        /// The task.
        original_query: String,
        /// The progress summary shown to the user.
        summary: String,
    },
    /// The request ended without an answer the user could see; this text, built from the tool history,
    /// says what was done and what is left.
    FallbackResponse {
        /// The text.
        text: String,
    },
    /// The todo list changed.
    TodosUpdated {
        /// The whole list.
        items: Vec<TodoItem>,
    },
    /// Plan mode was switched on or off.
    PlanModeChanged {
        /// Whether plan mode is on now.
        active: bool,
    },
    /// The model presented a plan for approval.
    PlanPresented {
        /// The plan, in markdown.
        plan: String,
    },
    /// The size of the next model request, as the engine counts it (what the provider counted for the
    /// last call plus an estimate of what was added since), against the model's window.
    ContextUsed {
        /// Tokens of the request about to be sent.
        tokens: u64,
        /// The model's context window, when known.
        window: Option<u64>,
    },
    /// The history was compacted: older turns replaced by a summary (they stay in the session, marked).
    ContextCompacted {
        /// Estimated tokens of the next request before.
        tokens_before: u64,
        /// Estimated tokens after.
        tokens_after: u64,
        /// Messages the summary replaced.
        compacted_messages: usize,
    },
    /// One of the project's checks ran.
    CheckFinished {
        /// Why it ran.
        phase: crate::verification::CheckPhase,
        /// How it ended.
        check: crate::verification::CheckReport,
    },
    /// The request finished normally.
    RequestFinished {
        /// Why it stopped.
        reason: FinishReason,
        /// How many iterations ran.
        iterations: u32,
        /// The last assistant text the user saw (marker stripped).
        response: String,
    },
    /// The user aborted the request; partial text was kept as `[INTERRUPTED]`.
    RequestAborted {
        /// The text streamed before the abort.
        partial_text: String,
    },
    /// The global request timeout fired.
    RequestTimedOut {
        /// The limit, in seconds.
        timeout_secs: f64,
    },
    /// The request failed.
    RequestFailed {
        /// A short machine-readable kind (`auth`, `rate_limit`, `network`, …).
        kind: String,
        /// What went wrong, for the user.
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_serialize_with_a_type_tag() {
        let event = AgentEvent::ToolCallFinished {
            tool_call_id: "c1".into(),
            tool_name: "grep".into(),
            args: json!({"pattern": "x"}),
            result: "none".into(),
            duration_ms: 3,
            status: ToolStatus::Completed,
            diff: None,
        };
        let value = serde_json::to_value(&event).unwrap();
        assert_eq!(value["type"], "tool_call_finished");
        assert_eq!(value["status"], "completed");
        let back: AgentEvent = serde_json::from_value(value).unwrap();
        assert_eq!(back, event);
    }
}
