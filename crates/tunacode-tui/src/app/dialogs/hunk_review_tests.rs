//! The approval dialog's hunk-by-hunk review: keys, the answer it gives, a rewrite from the editor,
//! and how it looks.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use tunacode_core::runtime::ApprovalQuestion;
use tunacode_core::{Answer, ApprovalAnswer, SessionScope};
use tunacode_protocol::{EditedHunk, HunkSelection, ToolKind};

use super::*;
use crate::theme::Theme;

const PREVIEW: &str = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n line 1\n-line 2\n+line TWO\n line 3\n@@ -19,3 +19,3 @@\n line 19\n-line 20\n+line TWENTY\n line 21\n@@ -37,3 +37,3 @@\n line 37\n-line 38\n+line THIRTY-EIGHT\n line 39\n";

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn edit_dialog() -> ApprovalDialog {
    ApprovalDialog::new(
        "q-7".into(),
        ApprovalQuestion {
            tool_call_id: "p1".into(),
            tool_name: "apply_patch".into(),
            args: json!({"input": "…"}),
            kind: ToolKind::Write,
            preview: Some(PREVIEW.into()),
            reason: "apply_patch changes files in the workspace".into(),
            scope: SessionScope::Tool("apply_patch".into()),
            once_only: false,
            hunks: 3,
            subagent: None,
        },
    )
}

fn type_text(d: &mut ApprovalDialog, text: &str) {
    for c in text.chars() {
        d.handle_key(key(KeyCode::Char(c)));
    }
}

fn draw(d: &ApprovalDialog) -> String {
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal
        .draw(|f| d.render(f, f.area(), &Theme::plain()))
        .unwrap();
    format!("{}", terminal.backend())
}

#[test]
fn reviewing_accepts_two_of_three_hunks_and_asks_why_the_third_was_rejected() {
    let mut d = edit_dialog();
    assert!(
        d.options()
            .iter()
            .any(|o| o == "Review hunk by hunk (3 hunks)")
    );
    assert_eq!(d.handle_key(key(KeyCode::Char('r'))), DialogOutcome::Open);
    assert_snapshot!("hunk_review_first_80x24", draw(&d));
    assert_eq!(d.handle_key(key(KeyCode::Char('y'))), DialogOutcome::Open);
    assert_eq!(d.handle_key(key(KeyCode::Char('n'))), DialogOutcome::Open);
    // Enter does nothing until every hunk is decided.
    assert_eq!(d.handle_key(key(KeyCode::Enter)), DialogOutcome::Open);
    assert_eq!(d.handle_key(key(KeyCode::Char('y'))), DialogOutcome::Open);
    assert_snapshot!("hunk_review_decided_80x24", draw(&d));
    assert_eq!(
        d.handle_key(key(KeyCode::Enter)),
        DialogOutcome::Open,
        "the note first"
    );
    type_text(&mut d, "line 20 stays");
    assert_eq!(
        d.handle_key(key(KeyCode::Enter)),
        DialogOutcome::Answered(Answer::Approval(ApprovalAnswer::AllowHunks(
            HunkSelection {
                accepted: vec![0, 2],
                edited: vec![],
                note: Some("line 20 stays".into()),
            }
        )))
    );
}

#[test]
fn a_hunk_rewritten_in_the_editor_is_answered_as_the_user_left_it() {
    let mut d = edit_dialog();
    d.handle_key(key(KeyCode::Char('r')));
    let DialogOutcome::Edit(text) = d.handle_key(key(KeyCode::Char('e'))) else {
        panic!("e asks for the editor")
    };
    assert_eq!(
        text,
        "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n line 1\n-line 2\n+line TWO\n line 3\n"
    );
    // An edit that changes the hunk's old lines is not taken, and says why.
    d.take_edit(Some(text.replace(" line 1\n", " line one\n")));
    assert!(draw(&d).contains("The edit was not taken"));
    d.take_edit(Some(text.replace("+line TWO", "+line 2, reworded")));
    d.handle_key(key(KeyCode::Char('y')));
    d.handle_key(key(KeyCode::Char('y')));
    assert_eq!(
        d.handle_key(key(KeyCode::Enter)),
        DialogOutcome::Answered(Answer::Approval(ApprovalAnswer::AllowHunks(
            HunkSelection {
                accepted: vec![1, 2],
                edited: vec![EditedHunk {
                    index: 0,
                    text: "line 1\nline 2, reworded\nline 3\n".into(),
                }],
                note: None,
            }
        )))
    );
}

#[test]
fn esc_goes_back_from_the_review_to_the_choices_and_a_whole_call_has_no_review() {
    let mut d = edit_dialog();
    d.handle_key(key(KeyCode::Char('r')));
    assert_eq!(d.handle_key(key(KeyCode::Esc)), DialogOutcome::Open);
    assert!(draw(&d).contains("Review hunk by hunk"));
    assert_eq!(
        d.handle_key(key(KeyCode::Char('y'))),
        DialogOutcome::Answered(Answer::Approval(ApprovalAnswer::AllowOnce))
    );
}
