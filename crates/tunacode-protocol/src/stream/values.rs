//! The values stream-json lines carry: usage, todos, tool use counts, undone files, and the public names
//! of finish reasons.

use schemars::JsonSchema;
use serde::Serialize;

use crate::event::{FinishReason, TodoItem, TodoStatus};
use crate::usage::Usage;

/// Token usage as scripts see it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, JsonSchema)]
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
#[derive(Debug, Clone, Serialize, JsonSchema)]
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
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ToolUseOut {
    /// The tool.
    pub name: String,
    /// Calls made.
    pub count: u32,
}

/// The public name of a finish reason.
pub fn finish_reason(reason: FinishReason) -> &'static str {
    match reason {
        FinishReason::Completed => "completed",
        FinishReason::Answered => "answered",
        FinishReason::IterationLimit => "iteration_limit",
        FinishReason::PlanPresented => "plan_presented",
        FinishReason::Compacted => "compacted",
        FinishReason::LoopDetected => "loop_detected",
    }
}

/// A file an undo put back.
#[derive(Debug, Serialize, JsonSchema)]
#[allow(missing_docs)]
pub struct UndoneFile {
    pub path: String,
    pub how: String,
}

/// What a notice with a `kind` adds.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NoticeDetail {
    /// The session's journal was replayed when it opened (the last run stopped before it saved).
    JournalRecovery {
        /// The figures.
        recovery: RecoveryOut,
    },
}

/// What replaying a session's journal found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RecoveryOut {
    /// Journal lines replayed (messages and tool results the last run wrote before it stopped).
    pub recovered: usize,
    /// Journal lines that could not be replayed.
    pub kept_aside: usize,
    /// The file they were kept in, beside the session (or null).
    pub kept_file: Option<String>,
}

/// One run of a project check, as scripts see it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CheckOut {
    /// The check's name.
    pub name: String,
    /// `lint`, `typecheck` or `test`.
    pub kind: String,
    /// `passed`, `failed` or `error` (timed out, or could not start).
    pub status: &'static str,
    /// How long it ran.
    pub duration_ms: u64,
    /// The end of its output.
    pub output_tail: String,
}

impl From<&crate::CheckReport> for CheckOut {
    fn from(report: &crate::CheckReport) -> Self {
        CheckOut {
            name: report.name.clone(),
            kind: report.kind.clone(),
            status: report.status.name(),
            duration_ms: report.duration_ms,
            output_tail: report.output_tail.clone(),
        }
    }
}

/// How a request proved its changes.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct VerificationOut {
    /// `verified` (every check covering the edits passed after the last edit), `unverified` (no
    /// checks, no edit, or not all of them ran) or `failing`.
    pub status: &'static str,
    /// The last run of each check since the last edit.
    pub checks: Vec<CheckOut>,
    /// Why the verdict deserves a second look (an answer that claims the tests pass unproven).
    pub note: Option<String>,
}

impl From<&crate::Verification> for VerificationOut {
    fn from(v: &crate::Verification) -> Self {
        VerificationOut {
            status: v.status.name(),
            checks: v.checks.iter().map(CheckOut::from).collect(),
            note: v.note.clone(),
        }
    }
}
