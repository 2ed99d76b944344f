//! [`LoopDialog`]: the model repeats itself after it was told to change approach; go on, stop, or go
//! on and stop watching for loops in this session.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use tunacode_core::{Answer, LoopDecision, LoopQuestion};

use super::frame::{Scroll, draw_popup, numbered_choices};
use super::question_dialog::{DialogOutcome, QuestionDialog};
use crate::theme::Theme;

/// The choices, in the order shown.
const CHOICES: [LoopDecision; 3] = [
    LoopDecision::Continue,
    LoopDecision::Stop,
    LoopDecision::Disable,
];

/// The loop question on screen.
#[derive(Debug)]
pub struct LoopDialog {
    id: String,
    question: LoopQuestion,
    selected: usize,
    scroll: Scroll,
}

impl LoopDialog {
    /// A dialog for question `id`.
    pub fn new(id: String, question: LoopQuestion) -> Self {
        LoopDialog {
            id,
            question,
            selected: 0,
            scroll: Scroll::default(),
        }
    }
}

impl QuestionDialog for LoopDialog {
    fn question_id(&self) -> &str {
        &self.id
    }

    fn handle_key(&mut self, key: KeyEvent) -> DialogOutcome {
        let chosen = match key.code {
            KeyCode::Char(c @ '1'..='3') => CHOICES[usize::from(c as u8 - b'1')],
            KeyCode::Esc => LoopDecision::Stop,
            KeyCode::Enter => CHOICES[self.selected],
            KeyCode::Down | KeyCode::Tab => {
                self.selected = (self.selected + 1) % CHOICES.len();
                return DialogOutcome::Open;
            }
            KeyCode::Up => {
                self.selected = (self.selected + CHOICES.len() - 1) % CHOICES.len();
                return DialogOutcome::Open;
            }
            _ => return DialogOutcome::Open,
        };
        DialogOutcome::Answered(Answer::Loop(chosen))
    }

    fn render(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let lines = vec![
            Line::styled(
                format!(
                    "After being told to change approach, {} ({} model calls so far).",
                    self.question.repeated, self.question.iterations
                ),
                theme.text,
            ),
            Line::default(),
        ];
        let options = [
            "Continue (the count starts again)".to_string(),
            "Stop the request".to_string(),
            "Continue, and stop watching for loops in this session".to_string(),
        ];
        let choices = numbered_choices(&options, self.selected, theme);
        draw_popup(
            frame,
            area,
            " The agent is repeating itself ",
            lines,
            choices,
            &self.scroll,
            theme,
        );
    }

    fn dismissed(&self) -> Answer {
        Answer::Loop(LoopDecision::Stop)
    }
}
