//! [`BudgetDialog`]: a spend cap cannot pay for the next model call; raise it as the runtime proposes,
//! or stop the request.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use tunacode_core::Answer;
use tunacode_protocol::runtime::BudgetQuestion;

use super::frame::{Scroll, draw_popup, numbered_choices};
use super::question_dialog::{DialogOutcome, QuestionDialog};
use crate::theme::Theme;

/// The budget question on screen.
#[derive(Debug)]
pub struct BudgetDialog {
    id: String,
    question: BudgetQuestion,
    /// 0: raise, 1: stop.
    selected: usize,
    scroll: Scroll,
}

impl BudgetDialog {
    /// A dialog for question `id`.
    pub fn new(id: String, question: BudgetQuestion) -> Self {
        BudgetDialog {
            id,
            question,
            selected: 0,
            scroll: Scroll::default(),
        }
    }

    fn options(&self) -> [String; 2] {
        [
            format!("Raise it to {} and go on", self.question.raise_to()),
            "Stop the request".to_string(),
        ]
    }
}

impl QuestionDialog for BudgetDialog {
    fn question_id(&self) -> &str {
        &self.id
    }

    fn handle_key(&mut self, key: KeyEvent) -> DialogOutcome {
        let raise = match key.code {
            KeyCode::Char('1' | 'y') => true,
            KeyCode::Char('2' | 'n') | KeyCode::Esc => false,
            KeyCode::Enter => self.selected == 0,
            KeyCode::Up | KeyCode::Down | KeyCode::Tab => {
                self.selected = 1 - self.selected;
                return DialogOutcome::Open;
            }
            _ => return DialogOutcome::Open,
        };
        DialogOutcome::Answered(Answer::Budget { raise })
    }

    fn render(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let lines = vec![
            Line::styled(self.question.message.clone(), theme.text),
            Line::default(),
        ];
        let choices = numbered_choices(&self.options(), self.selected, theme);
        draw_popup(
            frame,
            area,
            " Budget reached ",
            lines,
            choices,
            &self.scroll,
            theme,
        );
    }

    fn dismissed(&self) -> Answer {
        Answer::Budget { raise: false }
    }
}
