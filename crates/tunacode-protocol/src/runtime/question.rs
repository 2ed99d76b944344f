//! Questions the runtime asks the user, and the answers front ends send back.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tool_kind::ToolKind;

/// A question for the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// Its id (what the answer names).
    pub id: String,
    /// What is asked.
    pub kind: QuestionKind,
}

/// What a question asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// May this tool call run?
    Approval(ApprovalQuestion),
    /// The iteration limit was reached: continue, summarize, try another approach, or stop?
    IterationLimit(ProgressReport),
    /// The model presented a plan: approve or reject it?
    PlanReview {
        /// The plan, in markdown.
        plan: String,
    },
    /// A spend cap cannot pay for the next model call: raise it, or stop the request?
    Budget(super::budget::BudgetQuestion),
    /// The model repeats itself again after it was told to change approach: go on, stop, or stop
    /// watching for loops in this session?
    Loop(LoopQuestion),
}

/// A loop caught a second time in one request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopQuestion {
    /// What the model repeats.
    pub repeated: String,
    /// Iterations run so far.
    pub iterations: u32,
}

/// What to do about a model that repeats itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopDecision {
    /// Go on; the count starts again.
    Continue,
    /// End the request (what a headless run does).
    Stop,
    /// Go on, and stop watching for loops for the rest of this session.
    Disable,
}

/// An approval to give or refuse.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalQuestion {
    /// The tool call.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// Its arguments.
    pub args: Value,
    /// What this call may do.
    pub kind: ToolKind,
    /// The diff of an edit or the command line, when there is one.
    pub preview: Option<String>,
    /// Why it asks.
    pub reason: String,
    /// What "allow for this session" would cover.
    pub scope: SessionScope,
    /// Only this one call can be allowed (running outside the sandbox, a dangerous command): an
    /// "allow for the session" answer counts as allow once.
    pub once_only: bool,
    /// How many hunks of the preview can be accepted one by one (`AllowHunks`); 0 when the call
    /// can only be taken whole.
    #[serde(default)]
    pub hunks: usize,
    /// The sub-agent whose call this is (`None`: the agent's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent: Option<Box<super::subagent::SubagentLabel>>,
}

/// The reach of a session allowance (what "allow for this session" covers; the runtime decides
/// which calls fall under it).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionScope {
    /// Every call of this tool.
    Tool(String),
    /// Simple commands whose words start with these (program, subcommand).
    CommandPrefix(Vec<String>),
    /// Exactly this command line.
    ExactCommand(String),
    /// Every `web_fetch` of this host.
    Domain(String),
}

impl fmt::Display for SessionScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionScope::Tool(name) => write!(f, "every {name} call"),
            SessionScope::CommandPrefix(prefix) => write!(f, "`{} …` commands", prefix.join(" ")),
            SessionScope::ExactCommand(line) => write!(f, "exactly `{line}`"),
            SessionScope::Domain(host) => write!(f, "every web_fetch of {host}"),
        }
    }
}

/// Where the request stands when the iteration limit is reached (seed 004's clarification).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgressReport {
    /// Iterations run.
    pub iterations: u32,
    /// The limit reached.
    pub max_iterations: u32,
    /// The task.
    pub original_query: String,
    /// The summary and choices shown to the user.
    pub summary: String,
}

/// What to do when the iteration limit is reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitDecision {
    /// Keep going; the limit grows by 5.
    Continue,
    /// Ask the model for a summary (no tools), then stop.
    Summarize,
    /// Tell the model to try another approach; the limit grows by 5.
    TryAnotherApproach,
    /// Stop now (what a headless run does).
    Stop,
}

/// What the user said about a presented plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanDecision {
    /// Go ahead: the plan is saved to `PLAN.md` and all tools come back.
    Approve,
    /// Revise it; the feedback goes to the model.
    Reject {
        /// What the user wants changed.
        feedback: String,
    },
    /// Nobody can approve it now (a headless run): end the request with the plan as the answer.
    Stop,
}

/// An answer to a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// To an approval.
    Approval(ApprovalAnswer),
    /// To the iteration-limit question.
    Limit(LimitDecision),
    /// To a plan review.
    Plan(PlanDecision),
    /// To a budget question: raise the cap as proposed (`true`) or stop the request.
    Budget {
        /// Raise it.
        raise: bool,
    },
    /// To a loop question.
    Loop(LoopDecision),
}

/// What the user said to an approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalAnswer {
    /// Run this call.
    AllowOnce,
    /// Run it, and calls like it (the question's scope) for the rest of the session.
    AllowSession,
    /// Do not run it; the note (if any) goes to the model.
    Deny {
        /// What the user wants the model to know.
        note: Option<String>,
    },
    /// Write only these hunks of the edit's preview (the question offered `hunks`); the model is
    /// told which were rejected.
    AllowHunks(crate::diff_hunks::HunkSelection),
}
