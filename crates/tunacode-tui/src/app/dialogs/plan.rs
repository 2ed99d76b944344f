//! [`PlanDialog`]: a plan to review; approve it, or reject it with feedback for the model.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use tunacode_core::{Answer, PlanDecision};

use super::frame::{
    LineEdit, Scroll, draw_popup, edit_line, field_line, option_lines, popup_width,
};
use super::question_dialog::{DialogOutcome, QuestionDialog};
use crate::render::render_markdown;
use crate::theme::Theme;

/// A plan review on screen.
#[derive(Debug)]
pub struct PlanDialog {
    id: String,
    plan: String,
    /// 0 approve, 1 reject.
    selected: usize,
    feedback: Option<String>,
    scroll: Scroll,
}

impl PlanDialog {
    /// A dialog for question `id`.
    pub fn new(id: String, plan: String) -> Self {
        PlanDialog {
            id,
            plan,
            selected: 0,
            feedback: None,
            scroll: Scroll::default(),
        }
    }

    fn on_feedback_key(&mut self, key: KeyEvent) -> DialogOutcome {
        let Some(text) = &mut self.feedback else {
            return DialogOutcome::Open;
        };
        match edit_line(text, key) {
            LineEdit::Submit => {
                let feedback = if text.trim().is_empty() {
                    "the user rejected the plan".to_string()
                } else {
                    text.trim().to_string()
                };
                DialogOutcome::Answered(Answer::Plan(PlanDecision::Reject { feedback }))
            }
            LineEdit::Cancel => {
                self.feedback = None;
                DialogOutcome::Open
            }
            LineEdit::Editing => DialogOutcome::Open,
        }
    }

    fn start_feedback(&mut self) -> DialogOutcome {
        self.selected = 1;
        self.feedback = Some(String::new());
        DialogOutcome::Open
    }
}

impl QuestionDialog for PlanDialog {
    fn question_id(&self) -> &str {
        &self.id
    }

    fn handle_key(&mut self, key: KeyEvent) -> DialogOutcome {
        if self.feedback.is_some() {
            return self.on_feedback_key(key);
        }
        let approve = DialogOutcome::Answered(Answer::Plan(PlanDecision::Approve));
        match key.code {
            KeyCode::Char('a' | 'y') => approve,
            KeyCode::Char('r' | 'n') => self.start_feedback(),
            KeyCode::Enter if self.selected == 0 => approve,
            KeyCode::Enter => self.start_feedback(),
            KeyCode::Left | KeyCode::Right | KeyCode::Tab => {
                self.selected = 1 - self.selected;
                DialogOutcome::Open
            }
            KeyCode::Down | KeyCode::PageDown => {
                let by = if key.code == KeyCode::Down { 1 } else { 10 };
                self.scroll.down(by);
                DialogOutcome::Open
            }
            KeyCode::Up | KeyCode::PageUp => {
                let by = if key.code == KeyCode::Up { 1 } else { 10 };
                self.scroll.up(by);
                DialogOutcome::Open
            }
            _ => DialogOutcome::Open,
        }
    }

    fn render(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let width = popup_width(area);
        let mut lines = render_markdown(&self.plan, width.saturating_sub(4), theme);
        lines.push(Line::default());
        let options = ["Approve".to_string(), "Reject with feedback".to_string()];
        let mut choices = option_lines(
            &options,
            self.selected,
            theme,
            &["a", "r"],
            width.saturating_sub(2),
        );
        if let Some(text) = &self.feedback {
            choices.push(field_line(
                "Feedback (Enter sends, Esc back): ",
                text,
                theme,
            ));
        }
        draw_popup(
            frame,
            area,
            " Plan for approval ",
            lines,
            choices,
            &self.scroll,
            theme,
        );
    }

    fn dismissed(&self) -> Answer {
        Answer::Plan(PlanDecision::Reject {
            feedback: "the user dismissed the plan".into(),
        })
    }
}
