use std::sync::Arc;

use serde_json::json;
use tokio::sync::mpsc;

use super::*;
use crate::events::EventSink;
use crate::runtime::events::RuntimeEvent;

fn request(tool: &str, args: serde_json::Value, kind: ToolKind) -> ApprovalRequest {
    ApprovalRequest {
        tool_call_id: "c1".into(),
        tool_name: tool.into(),
        args,
        kind,
        preview: None,
    }
}

fn policy(interactive: bool) -> (Arc<Policy>, mpsc::UnboundedReceiver<RuntimeEvent>) {
    let (events, rx) = EventSink::channel();
    let policy = Policy::new(
        Questions::new(events),
        &["todo_like".to_string()],
        false,
        interactive,
    );
    (Arc::new(policy), rx)
}

/// Waits for the next question and answers it.
async fn answer_next(
    policy: &Policy,
    rx: &mut mpsc::UnboundedReceiver<RuntimeEvent>,
    answer: ApprovalAnswer,
) -> ApprovalQuestion {
    loop {
        match rx.recv().await {
            Some(RuntimeEvent::Question(q)) => {
                let QuestionKind::Approval(approval) = q.kind.clone() else {
                    panic!("{q:?}")
                };
                policy
                    .questions
                    .answer(&q.id, Answer::Approval(answer))
                    .unwrap();
                return approval;
            }
            Some(_) => continue,
            None => panic!("no question"),
        }
    }
}

#[tokio::test]
async fn allow_session_covers_the_same_command_prefix_only() {
    let (policy, mut rx) = policy(true);
    let cargo = request(
        "bash",
        json!({"command": "cargo test -p a"}),
        ToolKind::Execute,
    );
    let asking = tokio::spawn({
        let p = policy.clone();
        let r = cargo.clone();
        async move { p.approve(&r).await }
    });
    let question = answer_next(&policy, &mut rx, ApprovalAnswer::AllowSession).await;
    assert_eq!(
        question.scope,
        SessionScope::CommandPrefix(vec!["cargo".into(), "test".into()])
    );
    assert!(!question.reason.is_empty());
    assert_eq!(asking.await.unwrap(), ApprovalDecision::Approve);

    let again = request(
        "bash",
        json!({"command": "cargo test --all"}),
        ToolKind::Execute,
    );
    assert_eq!(policy.approve(&again).await, ApprovalDecision::Approve);

    let other = request(
        "bash",
        json!({"command": "cargo publish"}),
        ToolKind::Execute,
    );
    let asking = tokio::spawn({
        let p = policy.clone();
        async move { p.approve(&other).await }
    });
    answer_next(
        &policy,
        &mut rx,
        ApprovalAnswer::Deny {
            note: Some("not now".into()),
        },
    )
    .await;
    assert_eq!(
        asking.await.unwrap(),
        ApprovalDecision::Deny {
            reason: "not now".into()
        }
    );
    policy.reset_session();
    let asking = tokio::spawn({
        let p = policy.clone();
        async move { p.approve(&again).await }
    });
    answer_next(&policy, &mut rx, ApprovalAnswer::AllowOnce).await;
    assert_eq!(asking.await.unwrap(), ApprovalDecision::Approve);
}

#[tokio::test]
async fn ignore_list_and_yolo_approve_headless_denies_and_stops() {
    let (policy, _rx) = policy(false);
    let ignored = request("todo_like", json!({}), ToolKind::Write);
    assert_eq!(policy.approve(&ignored).await, ApprovalDecision::Approve);
    let write = request("write_file", json!({"file_path": "a"}), ToolKind::Write);
    assert_eq!(
        policy.approve(&write).await,
        ApprovalDecision::Deny {
            reason: HEADLESS_DENIAL.into()
        }
    );
    let report = ProgressReport {
        iterations: 1,
        max_iterations: 1,
        original_query: "q".into(),
        summary: "s".into(),
    };
    assert_eq!(
        policy.on_iteration_limit(&report).await,
        LimitDecision::Stop
    );
    assert_eq!(policy.review_plan("p").await, PlanDecision::Stop);
    policy.set_yolo(true);
    assert_eq!(policy.approve(&write).await, ApprovalDecision::Approve);
    assert_eq!(policy.review_plan("p").await, PlanDecision::Approve);
}

#[tokio::test]
async fn a_question_withdrawn_or_closed_is_announced() {
    let (policy, mut rx) = policy(true);
    let write = request("write_file", json!({"file_path": "a"}), ToolKind::Write);
    let asking = tokio::spawn({
        let p = policy.clone();
        async move { p.approve(&write).await }
    });
    let id = match rx.recv().await {
        Some(RuntimeEvent::Question(q)) => q.id,
        other => panic!("{other:?}"),
    };
    assert!(matches!(
        policy
            .questions
            .answer(&id, Answer::Limit(LimitDecision::Stop)),
        Err(crate::runtime::OpFailure::WrongAnswer(_))
    ));
    policy.stop_asking();
    assert!(
        matches!(rx.recv().await, Some(RuntimeEvent::QuestionClosed { id: closed }) if closed == id)
    );
    assert_eq!(
        asking.await.unwrap(),
        ApprovalDecision::Deny {
            reason: HEADLESS_DENIAL.into()
        }
    );
    assert!(matches!(
        policy
            .questions
            .answer(&id, Answer::Approval(ApprovalAnswer::AllowOnce)),
        Err(crate::runtime::OpFailure::UnknownQuestion(_))
    ));
}
