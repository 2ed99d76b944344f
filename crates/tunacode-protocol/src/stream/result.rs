//! The `result` line (and `--output json`'s object): how one request ended, for scripts.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::event::ToolStatus;
use crate::stream::values::UsageOut;

/// One tool call in the result summary.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ToolSummary {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// How it ended.
    pub status: ToolStatus,
    /// How long it ran.
    pub duration_ms: u64,
}

/// The final line / object of a run.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RunResult {
    /// `completed`, `answered`, `iteration_limit`, `aborted`, `timeout` or `error`.
    pub status: String,
    /// The process exit code.
    pub exit_code: u8,
    /// The session id (to resume with `--session`).
    pub session_id: String,
    /// The request id.
    pub request_id: String,
    /// `provider:model`.
    pub model: String,
    /// Iterations run.
    pub iterations: u32,
    /// The final answer (marker stripped).
    pub response: String,
    /// Session usage.
    pub usage: UsageOut,
    /// The error, when the run failed.
    pub error: Option<Value>,
    /// The progress summary, when the iteration limit stopped the run.
    pub limit_summary: Option<String>,
    /// Every tool call of the request, in the order they finished.
    pub tool_calls: Vec<ToolSummary>,
    /// How the request proved its changes (the project's checks); null when it failed.
    pub verification: Option<crate::stream::values::VerificationOut>,
}
