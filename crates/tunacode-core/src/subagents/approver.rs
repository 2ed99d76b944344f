//! [`SubagentApprover`]: a sub-agent asks the parent's approver (the runtime's one policy, so the
//! user's rules, the sandbox's questions and the session's allowances are the same), with each
//! question labelled with the sub-agent. It decides nothing for the user at its limits: a sub-agent
//! that reaches its iteration limit, presents a plan or keeps repeating itself stops, and its
//! parent carries on with what it found.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use tunacode_protocol::runtime::{BudgetQuestion, SubagentLabel};

use crate::approval::{
    ApprovalDecision, ApprovalRequest, Approver, Gate, LimitDecision, LoopDecision, LoopQuestion,
    PlanDecision, ProgressReport,
};

/// The approver of one sub-agent.
pub(super) struct SubagentApprover {
    pub(super) parent: Arc<dyn Approver>,
    pub(super) label: SubagentLabel,
}

#[async_trait]
impl Approver for SubagentApprover {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        let labelled = ApprovalRequest {
            subagent: Some(self.label.clone()),
            ..request.clone()
        };
        self.parent.approve(&labelled).await
    }

    fn gate(&self, tool_name: &str, args: &Value) -> Gate {
        self.parent.gate(tool_name, args)
    }

    async fn on_iteration_limit(&self, _report: &ProgressReport) -> LimitDecision {
        LimitDecision::Stop
    }

    async fn review_plan(&self, _plan: &str) -> PlanDecision {
        PlanDecision::Stop
    }

    /// The parent's caps are the user's: raising one is asked as for the parent.
    async fn on_budget(&self, question: &BudgetQuestion) -> bool {
        self.parent.on_budget(question).await
    }

    async fn on_loop(&self, _question: &LoopQuestion) -> LoopDecision {
        LoopDecision::Stop
    }
}
