//! Tests of the dialogs' key handling and answers.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use tunacode_core::runtime::ApprovalQuestion;
use tunacode_core::{
    Answer, ApprovalAnswer, LimitDecision, PlanDecision, ProgressReport, SessionScope,
};
use tunacode_protocol::ToolKind;

use super::*;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn approval() -> ApprovalDialog {
    ApprovalDialog::new(
        "q-1".into(),
        ApprovalQuestion {
            tool_call_id: "c".into(),
            tool_name: "bash".into(),
            args: json!({"command": "cargo test"}),
            kind: ToolKind::Execute,
            preview: Some("cargo test".into()),
            reason: "this command is not known to be read-only".into(),
            scope: SessionScope::CommandPrefix(vec!["cargo".into(), "test".into()]),
            once_only: false,
            hunks: 0,
            subagent: None,
        },
    )
}

fn answered(answer: Answer) -> DialogOutcome {
    DialogOutcome::Answered(answer)
}

#[test]
fn approval_yes_always_and_no_with_a_note() {
    let mut d = approval();
    assert_eq!(d.question_id(), "q-1");
    assert_eq!(
        d.handle_key(key(KeyCode::Char('y'))),
        answered(Answer::Approval(ApprovalAnswer::AllowOnce))
    );
    let mut d = approval();
    assert_eq!(
        d.handle_key(key(KeyCode::Char('a'))),
        answered(Answer::Approval(ApprovalAnswer::AllowSession))
    );
    let mut d = approval();
    assert_eq!(d.handle_key(key(KeyCode::Char('n'))), DialogOutcome::Open);
    for c in "use rg".chars() {
        d.handle_key(key(KeyCode::Char(c)));
    }
    assert_eq!(
        d.handle_key(key(KeyCode::Enter)),
        answered(Answer::Approval(ApprovalAnswer::Deny {
            note: Some("use rg".into())
        }))
    );
    let mut d = approval();
    d.handle_key(key(KeyCode::Right));
    assert_eq!(
        d.handle_key(key(KeyCode::Enter)),
        answered(Answer::Approval(ApprovalAnswer::AllowSession))
    );
}

#[test]
fn a_once_only_approval_offers_no_always() {
    let mut question = approval().question;
    question.once_only = true;
    let mut d = ApprovalDialog::new("q-2".into(), question);
    assert_eq!(d.handle_key(key(KeyCode::Char('a'))), DialogOutcome::Open);
    assert_eq!(d.options(), ["Yes, this once", "No"]);
    d.handle_key(key(KeyCode::Right));
    assert_eq!(
        d.handle_key(key(KeyCode::Enter)),
        DialogOutcome::Open,
        "No asks for a note"
    );
    let mut d = ApprovalDialog::new("q-3".into(), approval().question);
    d.question.once_only = true;
    assert_eq!(
        d.handle_key(key(KeyCode::Char('y'))),
        answered(Answer::Approval(ApprovalAnswer::AllowOnce))
    );
}

#[test]
fn limit_choices_and_plan_feedback() {
    let report = ProgressReport {
        iterations: 5,
        max_iterations: 5,
        original_query: "q".into(),
        summary: "sum".into(),
    };
    let mut d = LimitDialog::new("q-2".into(), report);
    d.handle_key(key(KeyCode::Down));
    d.handle_key(key(KeyCode::Down));
    assert_eq!(
        d.handle_key(key(KeyCode::Enter)),
        answered(Answer::Limit(LimitDecision::TryAnotherApproach))
    );
    let mut d = PlanDialog::new("q-3".into(), "# P".into());
    d.handle_key(key(KeyCode::Char('r')));
    for c in "smaller".chars() {
        d.handle_key(key(KeyCode::Char(c)));
    }
    assert_eq!(
        d.handle_key(key(KeyCode::Enter)),
        answered(Answer::Plan(PlanDecision::Reject {
            feedback: "smaller".into()
        }))
    );
}

#[test]
fn dismissing_answers_safely() {
    assert_eq!(
        approval().dismissed(),
        Answer::Approval(ApprovalAnswer::Deny { note: None })
    );
    // Esc declines the call and stops the request (the app interrupts on `Stop`).
    let mut d = approval();
    assert_eq!(d.handle_key(key(KeyCode::Esc)), DialogOutcome::Stop);
    let d = PlanDialog::new("q".into(), "p".into());
    assert!(matches!(
        d.dismissed(),
        Answer::Plan(PlanDecision::Reject { .. })
    ));
}

#[test]
fn scrolling_stops_at_the_end_so_one_page_up_comes_back() {
    let report = ProgressReport {
        iterations: 5,
        max_iterations: 5,
        original_query: "q".into(),
        summary: (1..=60).map(|i| format!("line {i}\n")).collect(),
    };
    let mut d = LimitDialog::new("q-4".into(), report);
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).expect("terminal");
    let theme = crate::theme::Theme::dark();
    let mut draw = |d: &LimitDialog| {
        terminal
            .draw(|f| d.render(f, f.area(), &theme))
            .expect("draws");
    };
    draw(&d);
    for _ in 0..20 {
        d.handle_key(key(KeyCode::PageDown));
    }
    let bottom = d.scroll.offset();
    assert!(
        bottom > 0 && bottom < 200,
        "clamped to the content: {bottom}"
    );
    d.handle_key(key(KeyCode::PageUp));
    assert_eq!(d.scroll.offset(), bottom - 10);
    draw(&d);
}

fn budget_dialog() -> BudgetDialog {
    BudgetDialog::new(
        "q-5".into(),
        tunacode_protocol::runtime::BudgetQuestion {
            scope: tunacode_protocol::runtime::BudgetScope::Session,
            message: "the session budget is exhausted: $4.97 of $5.00 spent, not enough left for \
                      another call"
                .into(),
            raise_to_usd: Some(10.0),
            raise_to_tokens: None,
        },
    )
}

#[test]
fn a_budget_is_raised_with_yes_or_enter_and_stops_otherwise() {
    let raise = |raise| answered(Answer::Budget { raise });
    assert_eq!(
        budget_dialog().handle_key(key(KeyCode::Char('y'))),
        raise(true)
    );
    assert_eq!(budget_dialog().handle_key(key(KeyCode::Enter)), raise(true));
    assert_eq!(budget_dialog().handle_key(key(KeyCode::Esc)), raise(false));
    let mut d = budget_dialog();
    assert_eq!(d.handle_key(key(KeyCode::Down)), DialogOutcome::Open);
    assert_eq!(d.handle_key(key(KeyCode::Enter)), raise(false));
    assert_eq!(budget_dialog().dismissed(), Answer::Budget { raise: false });
}

#[test]
fn the_budget_dialog_says_what_is_spent_and_what_the_cap_becomes() {
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(90, 14)).expect("terminal");
    let theme = crate::theme::Theme::plain();
    terminal
        .draw(|f| budget_dialog().render(f, f.area(), &theme))
        .expect("draws");
    insta::assert_snapshot!(terminal.backend());
}

fn loop_dialog() -> LoopDialog {
    LoopDialog::new(
        "q-6".into(),
        tunacode_core::LoopQuestion {
            repeated: "the same `bash` call with the same arguments got the same result 4 times"
                .into(),
            iterations: 9,
        },
    )
}

#[test]
fn a_loop_goes_on_stops_or_stops_being_watched() {
    let chose = |d| answered(Answer::Loop(d));
    use tunacode_core::LoopDecision::{Continue, Disable, Stop};
    assert_eq!(
        loop_dialog().handle_key(key(KeyCode::Enter)),
        chose(Continue)
    );
    assert_eq!(
        loop_dialog().handle_key(key(KeyCode::Char('2'))),
        chose(Stop)
    );
    assert_eq!(
        loop_dialog().handle_key(key(KeyCode::Char('3'))),
        chose(Disable)
    );
    assert_eq!(loop_dialog().handle_key(key(KeyCode::Esc)), chose(Stop));
    let mut d = loop_dialog();
    assert_eq!(d.handle_key(key(KeyCode::Up)), DialogOutcome::Open);
    assert_eq!(d.handle_key(key(KeyCode::Enter)), chose(Disable));
    assert_eq!(loop_dialog().dismissed(), Answer::Loop(Stop));
}

#[test]
fn the_loop_dialog_says_what_repeats_and_offers_three_ways_on() {
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(90, 14)).expect("terminal");
    let theme = crate::theme::Theme::plain();
    terminal
        .draw(|f| loop_dialog().render(f, f.area(), &theme))
        .expect("draws");
    insta::assert_snapshot!(terminal.backend());
}
