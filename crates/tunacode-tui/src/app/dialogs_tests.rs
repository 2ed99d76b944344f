//! Tests of the dialogs' key handling and answers.

use super::*;
use serde_json::json;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn approval() -> (Dialog, oneshot::Receiver<ApprovalDecision>) {
    let (tx, rx) = oneshot::channel();
    let request = ApprovalRequest {
        tool_call_id: "c".into(),
        tool_name: "bash".into(),
        args: json!({"command": "ls"}),
        kind: ToolKind::Execute,
        preview: Some("ls -la".into()),
    };
    (
        Dialog::Approval {
            request,
            reply: Some(tx),
            selected: 0,
            note: None,
            scroll: 0,
        },
        rx,
    )
}

#[test]
fn approval_yes_always_and_no_with_a_note() {
    let (mut d, mut rx) = approval();
    assert_eq!(d.handle_key(key(KeyCode::Char('y'))), DialogOutcome::Closed);
    assert_eq!(rx.try_recv().unwrap(), ApprovalDecision::Approve);
    let (mut d, mut rx) = approval();
    assert_eq!(
        d.handle_key(key(KeyCode::Char('a'))),
        DialogOutcome::AlwaysAllow("bash".into())
    );
    assert_eq!(rx.try_recv().unwrap(), ApprovalDecision::Approve);
    let (mut d, mut rx) = approval();
    assert_eq!(d.handle_key(key(KeyCode::Char('n'))), DialogOutcome::Open);
    for c in "use rg".chars() {
        d.handle_key(key(KeyCode::Char(c)));
    }
    assert_eq!(d.handle_key(key(KeyCode::Enter)), DialogOutcome::Closed);
    assert_eq!(
        rx.try_recv().unwrap(),
        ApprovalDecision::Deny {
            reason: "use rg".into()
        }
    );
}

#[test]
fn limit_choices_and_plan_feedback() {
    let (tx, mut rx) = oneshot::channel();
    let report = ProgressReport {
        iterations: 5,
        max_iterations: 5,
        original_query: "q".into(),
        summary: "sum".into(),
    };
    let mut d = Dialog::Limit {
        report,
        reply: Some(tx),
        selected: 0,
    };
    d.handle_key(key(KeyCode::Down));
    d.handle_key(key(KeyCode::Down));
    assert_eq!(d.handle_key(key(KeyCode::Enter)), DialogOutcome::Closed);
    assert_eq!(rx.try_recv().unwrap(), LimitDecision::TryAnotherApproach);
    let (tx, mut rx) = oneshot::channel();
    let mut d = Dialog::Plan {
        plan: "# P".into(),
        reply: Some(tx),
        selected: 0,
        feedback: None,
        scroll: 0,
    };
    d.handle_key(key(KeyCode::Char('r')));
    for c in "smaller".chars() {
        d.handle_key(key(KeyCode::Char(c)));
    }
    d.handle_key(key(KeyCode::Enter));
    assert_eq!(
        rx.try_recv().unwrap(),
        PlanDecision::Reject {
            feedback: "smaller".into()
        }
    );
}

#[test]
fn cancel_answers_safely() {
    let (mut d, mut rx) = approval();
    d.cancel();
    assert!(matches!(
        rx.try_recv().unwrap(),
        ApprovalDecision::Deny { .. }
    ));
}
