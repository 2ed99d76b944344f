//! Plan mode's tools: `present_plan` (the plan goes to the user, who approves it — then it is saved to
//! `PLAN.md` and all tools come back — or rejects it with feedback) and `exit_plan_mode`.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use tunacode_protocol::AgentEvent;
use tunacode_tools::{Tool, ToolContext, ToolError, ToolKind, ToolOutput};

use crate::approval::{Approver, PlanDecision};
use crate::events::EventSink;
use crate::session::SessionHandle;

/// The file an approved plan is saved to, in the workspace root.
pub const PLAN_FILE: &str = "PLAN.md";

/// `present_plan`.
pub(crate) struct PresentPlan {
    pub approver: Arc<dyn Approver>,
    pub session: SessionHandle,
    pub events: EventSink,
}

#[async_trait]
impl Tool for PresentPlan {
    fn name(&self) -> &str {
        "present_plan"
    }

    fn description(&self) -> &str {
        "Plan mode only: present your plan for approval, in markdown (goal, files to change, steps, \
         how to verify). Approved, it is saved to PLAN.md and all tools return; rejected, you get the \
         user's feedback."
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {
            "plan": {"type": "string"}
        }, "required": ["plan"]})
    }

    fn kind(&self) -> ToolKind {
        ToolKind::ReadOnly
    }

    async fn call(
        &self,
        args: Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        if !self.session.lock().plan_mode {
            return Ok(ToolOutput::text(NOT_IN_PLAN_MODE));
        }
        let plan = args
            .get("plan")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .ok_or_else(|| {
                ToolError::Retry("present_plan needs the plan as markdown in `plan`".into())
            })?
            .to_string();
        self.events
            .emit(AgentEvent::PlanPresented { plan: plan.clone() });
        let decision = tokio::select! {
            d = self.approver.review_plan(&plan) => d,
            _ = ctx.cancel.cancelled() => return Err(ToolError::Cancelled),
        };
        match decision {
            PlanDecision::Approve => {
                let path = ctx.workspace.root().join(PLAN_FILE);
                tokio::fs::write(&path, format!("{plan}\n"))
                    .await
                    .map_err(|e| ToolError::Fatal(format!("could not save {PLAN_FILE}: {e}")))?;
                self.session.lock().plan_mode = false;
                self.events
                    .emit(AgentEvent::PlanModeChanged { active: false });
                Ok(ToolOutput::text(format!(
                    "The user approved the plan; it is saved to {PLAN_FILE}. Plan mode is over and every \
                     tool is available: carry out the plan now."
                )))
            }
            PlanDecision::Reject { feedback } => Ok(ToolOutput::text(format!(
                "The user rejected the plan. Their feedback: {feedback}\nRevise the plan and present it again."
            ))),
            PlanDecision::Stop => {
                self.session.lock().runtime.plan_awaiting_approval = Some(plan);
                Ok(ToolOutput::text(
                    "The plan was presented to the user, who will review it later. Stop here.",
                ))
            }
        }
    }
}

/// `exit_plan_mode`.
pub(crate) struct ExitPlanMode {
    pub session: SessionHandle,
    pub events: EventSink,
}

#[async_trait]
impl Tool for ExitPlanMode {
    fn name(&self) -> &str {
        "exit_plan_mode"
    }

    fn description(&self) -> &str {
        "Plan mode only: leave it without a plan (the task needs none); all tools return."
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {
            "reason": {"type": "string", "description": "Why no plan is needed."}
        }, "required": []})
    }

    fn kind(&self) -> ToolKind {
        ToolKind::ReadOnly
    }

    async fn call(
        &self,
        _args: Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        if !std::mem::replace(&mut self.session.lock().plan_mode, false) {
            return Ok(ToolOutput::text(NOT_IN_PLAN_MODE));
        }
        self.events
            .emit(AgentEvent::PlanModeChanged { active: false });
        Ok(ToolOutput::text(
            "Left plan mode; every tool is available again.",
        ))
    }
}

/// The answer of a plan tool called outside plan mode (the tools are always offered, so that the
/// offered list never changes mid-session).
const NOT_IN_PLAN_MODE: &str = "You are not in plan mode: there is no plan to present or leave. Carry \
    on with the task with the tools you have.";
