//! The bridge between the engine and the UI: the engine asks its [`Approver`]; [`TuiApprover`] turns
//! each question into a [`UiRequest`] for the UI loop, which shows a dialog and answers through a
//! oneshot channel. `/yolo` and "always for this tool" answer without asking.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use tokio::sync::{mpsc, oneshot};
use tunacode_core::{
    ApprovalDecision, ApprovalRequest, Approver, LimitDecision, PlanDecision, ProgressReport,
};

/// A question from the engine waiting for the user.
#[derive(Debug)]
pub enum UiRequest {
    /// May this write or command run?
    Approve {
        /// What would run.
        request: ApprovalRequest,
        /// Where the answer goes.
        reply: oneshot::Sender<ApprovalDecision>,
    },
    /// The iteration limit was reached.
    Limit {
        /// The progress so far.
        report: ProgressReport,
        /// Where the answer goes.
        reply: oneshot::Sender<LimitDecision>,
    },
    /// A plan waits for approval.
    Plan {
        /// The plan, in markdown.
        plan: String,
        /// Where the answer goes.
        reply: oneshot::Sender<PlanDecision>,
    },
}

/// The approver the TUI gives the engine.
#[derive(Debug, Clone)]
pub struct TuiApprover {
    tx: mpsc::UnboundedSender<UiRequest>,
    /// `/yolo`: approve every write and command without asking.
    pub yolo: Arc<AtomicBool>,
    /// Tools approved "always" for this session, plus `settings.tool_ignore`.
    pub always: Arc<Mutex<HashSet<String>>>,
}

impl TuiApprover {
    /// An approver sending its questions to `tx`; `tool_ignore` never ask.
    pub fn new(tx: mpsc::UnboundedSender<UiRequest>, tool_ignore: &[String]) -> Self {
        TuiApprover {
            tx,
            yolo: Arc::new(AtomicBool::new(false)),
            always: Arc::new(Mutex::new(tool_ignore.iter().cloned().collect())),
        }
    }

    /// Approves `tool` for the rest of the session.
    pub fn allow_always(&self, tool: &str) {
        self.always
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(tool.to_string());
    }

    fn is_allowed(&self, tool: &str) -> bool {
        self.yolo.load(Ordering::Relaxed)
            || self
                .always
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .contains(tool)
    }
}

#[async_trait]
impl Approver for TuiApprover {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        if self.is_allowed(&request.tool_name) {
            return ApprovalDecision::Approve;
        }
        let (reply, answer) = oneshot::channel();
        if self
            .tx
            .send(UiRequest::Approve {
                request: request.clone(),
                reply,
            })
            .is_err()
        {
            return ApprovalDecision::Deny {
                reason: "the user interface closed".into(),
            };
        }
        answer.await.unwrap_or(ApprovalDecision::Deny {
            reason: "the user interface closed".into(),
        })
    }

    async fn on_iteration_limit(&self, report: &ProgressReport) -> LimitDecision {
        let (reply, answer) = oneshot::channel();
        if self
            .tx
            .send(UiRequest::Limit {
                report: report.clone(),
                reply,
            })
            .is_err()
        {
            return LimitDecision::Stop;
        }
        answer.await.unwrap_or(LimitDecision::Stop)
    }

    async fn review_plan(&self, plan: &str) -> PlanDecision {
        let (reply, answer) = oneshot::channel();
        if self
            .tx
            .send(UiRequest::Plan {
                plan: plan.to_string(),
                reply,
            })
            .is_err()
        {
            return PlanDecision::Stop;
        }
        answer.await.unwrap_or(PlanDecision::Stop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tunacode_tools::ToolKind;

    fn request(tool: &str) -> ApprovalRequest {
        ApprovalRequest {
            tool_call_id: "c".into(),
            tool_name: tool.into(),
            args: json!({}),
            kind: ToolKind::Write,
            preview: None,
        }
    }

    #[tokio::test]
    async fn asks_the_ui_unless_yolo_or_always() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let approver = TuiApprover::new(tx, &["bash".to_string()]);
        assert_eq!(
            approver.approve(&request("bash")).await,
            ApprovalDecision::Approve
        );
        let pending = tokio::spawn({
            let a = approver.clone();
            async move { a.approve(&request("write_file")).await }
        });
        match rx.recv().await {
            Some(UiRequest::Approve { request, reply }) => {
                assert_eq!(request.tool_name, "write_file");
                reply
                    .send(ApprovalDecision::Deny {
                        reason: "no".into(),
                    })
                    .unwrap();
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            pending.await.unwrap(),
            ApprovalDecision::Deny {
                reason: "no".into()
            }
        );
        approver.allow_always("write_file");
        assert_eq!(
            approver.approve(&request("write_file")).await,
            ApprovalDecision::Approve
        );
        approver.yolo.store(true, Ordering::Relaxed);
        assert_eq!(
            approver.approve(&request("update_file")).await,
            ApprovalDecision::Approve
        );
    }

    #[tokio::test]
    async fn a_closed_ui_denies_and_stops() {
        let (tx, rx) = mpsc::unbounded_channel();
        drop(rx);
        let approver = TuiApprover::new(tx, &[]);
        assert!(matches!(
            approver.approve(&request("x")).await,
            ApprovalDecision::Deny { .. }
        ));
        let report = ProgressReport {
            iterations: 1,
            max_iterations: 1,
            original_query: "q".into(),
            summary: "s".into(),
        };
        assert_eq!(
            approver.on_iteration_limit(&report).await,
            LimitDecision::Stop
        );
        assert_eq!(approver.review_plan("p").await, PlanDecision::Stop);
    }
}
