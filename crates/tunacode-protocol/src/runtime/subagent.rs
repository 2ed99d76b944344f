//! Sub-agents as front ends see them: a `task` call of the parent starts one, everything it does
//! arrives labelled with that call's id, and it ends with a [`SubagentReport`] (what the parent's
//! model is told, as data).

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::event::AgentEvent;
use crate::usage::Usage;

/// Which sub-agent something comes from (on its questions, so the user knows who asks).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SubagentLabel {
    /// The parent's `task` call that started it.
    pub parent_tool_call_id: String,
    /// Its agent type (`explore`, `general`, or a defined one).
    pub agent_type: String,
    /// The short description the parent gave it.
    pub description: String,
}

impl fmt::Display for SubagentLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.agent_type, self.description)
    }
}

/// Something a sub-agent did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubagentUpdate {
    /// Who.
    pub label: SubagentLabel,
    /// What.
    pub change: SubagentChange,
}

/// What a sub-agent did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubagentChange {
    /// It started, in a session of its own.
    Started {
        /// Its session (a child of the parent's).
        session_id: String,
        /// The model it runs on.
        model: String,
        /// The worktree it edits in, when it has one.
        worktree: Option<String>,
    },
    /// Its engine reported progress (its text, tool calls, usage).
    Event(AgentEvent),
    /// It ended.
    Finished(Box<SubagentReport>),
}

/// Why a sub-agent stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SubagentStatus {
    /// It answered.
    Done,
    /// Its spend cap (or the parent's) stopped it.
    Budget,
    /// It reached its iteration limit.
    Limit,
    /// A provider or internal error stopped it.
    Error,
    /// The user (or the parent's end) stopped it.
    Cancelled,
}

impl SubagentStatus {
    /// The word for it.
    pub fn name(self) -> &'static str {
        match self {
            SubagentStatus::Done => "done",
            SubagentStatus::Budget => "budget",
            SubagentStatus::Limit => "limit",
            SubagentStatus::Error => "error",
            SubagentStatus::Cancelled => "cancelled",
        }
    }
}

/// What a sub-agent did and found: the parent's tool result, as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubagentReport {
    /// Who.
    pub label: SubagentLabel,
    /// Its session.
    pub session_id: String,
    /// The model it ran on.
    pub model: String,
    /// Why it stopped.
    pub status: SubagentStatus,
    /// Its final answer; when it stopped early, what it wrote so far.
    pub answer: String,
    /// What stopped it, when it did not finish.
    pub error: Option<String>,
    /// Files it read.
    pub files_read: Vec<String>,
    /// Files it changed (in its worktree, for a writer that has one).
    pub files_changed: Vec<String>,
    /// Commands it ran.
    pub commands: Vec<String>,
    /// Its model calls' usage (tokens and cost).
    pub usage: Usage,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// What a writer in a worktree changed, as a unified diff (empty: nothing).
    #[serde(default)]
    pub diff: String,
    /// What became of `diff` (applied to the workspace, rejected, or why not).
    #[serde(default)]
    pub diff_outcome: Option<String>,
}
