//! Approval of writes and commands. The engine asks an [`Approver`] before a write or execute tool runs;
//! front ends supply one (a terminal prompt, a TUI dialog, `--yes`).

use std::path::PathBuf;

use async_trait::async_trait;
use serde_json::Value;
use tunacode_protocol::ToolKind;
pub use tunacode_protocol::runtime::{
    LimitDecision, LoopDecision, LoopQuestion, PlanDecision, ProgressReport,
};

/// What the user is asked to allow.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest {
    /// The call id.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// Its arguments.
    pub args: Value,
    /// Write or execute.
    pub kind: ToolKind,
    /// A diff or command line, when the tool can show one.
    pub preview: Option<String>,
    /// The files the call would change, as asked (`Tool::target_paths`): a protected one among them
    /// is asked about every time.
    pub targets: Vec<PathBuf>,
    /// A `PreToolUse` hook asked for the user's approval: asked once, even in yolo or under an
    /// allowance, and refused headless.
    pub hook_asks: bool,
    /// How many hunks of `preview` the user may accept one by one (0: the call is taken whole).
    pub hunks: usize,
    /// The sub-agent making the call (`None`: the agent's own), shown with the question.
    pub subagent: Option<tunacode_protocol::runtime::SubagentLabel>,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalDecision {
    /// Run it.
    Approve,
    /// Do not run it; the reason goes to the model.
    Deny {
        /// Why (shown to the model).
        reason: String,
    },
    /// Run it writing only the hunks the user accepted (or rewrote) of `reviewed`, the preview
    /// they reviewed.
    ApproveHunks {
        /// Which hunks.
        selection: tunacode_protocol::HunkSelection,
        /// The preview the indices refer to.
        reviewed: String,
    },
}

/// The user in the loop: approves writes and commands, and decides at the iteration limit and on plans.
#[async_trait]
pub trait Approver: Send + Sync {
    /// Asks for approval of one call.
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision;

    /// What rules say of a call before anything else, read-only calls included: refused outright,
    /// to be asked about although it only reads, or nothing. By default: nothing.
    fn gate(&self, _tool_name: &str, _args: &Value) -> Gate {
        Gate::Pass
    }

    /// The iteration limit was reached; what now? By default: stop.
    async fn on_iteration_limit(&self, _report: &ProgressReport) -> LimitDecision {
        LimitDecision::Stop
    }

    /// The model presented a plan; approve, reject, or stop. By default: stop with the plan.
    async fn review_plan(&self, _plan: &str) -> PlanDecision {
        PlanDecision::Stop
    }

    /// A spend cap cannot pay for the next call: raise it as proposed (`true`), or stop the request.
    /// By default: stop.
    async fn on_budget(&self, _question: &tunacode_protocol::runtime::BudgetQuestion) -> bool {
        false
    }

    /// The model repeats itself after it was told to change approach: go on, stop, or stop watching
    /// for loops in this session. By default: stop.
    async fn on_loop(&self, _question: &LoopQuestion) -> LoopDecision {
        LoopDecision::Stop
    }
}

/// What the rules say of a call before it is classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// Nothing: the usual approval applies.
    Pass,
    /// Ask even if the call only reads.
    Ask,
    /// Refused, with why (told to the model).
    Refuse(String),
}

/// Approves every call and every plan (`--yes`, yolo mode); stops at the iteration limit.
#[derive(Debug, Clone, Copy, Default)]
pub struct AutoApprove;

#[async_trait]
impl Approver for AutoApprove {
    async fn approve(&self, _request: &ApprovalRequest) -> ApprovalDecision {
        ApprovalDecision::Approve
    }

    async fn review_plan(&self, _plan: &str) -> PlanDecision {
        PlanDecision::Approve
    }
}

/// Refuses everything with one reason (a headless run without `--yes` and without a terminal).
#[derive(Debug, Clone)]
pub struct DenyAll {
    /// Told to the model.
    pub reason: String,
}

#[async_trait]
impl Approver for DenyAll {
    async fn approve(&self, _request: &ApprovalRequest) -> ApprovalDecision {
        ApprovalDecision::Deny {
            reason: self.reason.clone(),
        }
    }
}
