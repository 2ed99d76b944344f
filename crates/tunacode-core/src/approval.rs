//! Approval of writes and commands. The engine asks an [`Approver`] before a write or execute tool runs;
//! front ends supply one (a terminal prompt, a TUI dialog, `--yes`).

use async_trait::async_trait;
use serde_json::Value;
use tunacode_tools::ToolKind;

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
}

/// Decides whether a write or command may run.
#[async_trait]
pub trait Approver: Send + Sync {
    /// Asks for approval of one call.
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision;
}

/// Approves everything (`--yes`, yolo mode).
#[derive(Debug, Clone, Copy, Default)]
pub struct AutoApprove;

#[async_trait]
impl Approver for AutoApprove {
    async fn approve(&self, _request: &ApprovalRequest) -> ApprovalDecision {
        ApprovalDecision::Approve
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
