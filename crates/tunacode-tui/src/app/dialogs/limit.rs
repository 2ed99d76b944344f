//! [`LimitDialog`]: the iteration limit was reached; continue (+5), summarize and stop, try another
//! approach, or stop.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use tunacode_core::{Answer, LimitDecision, ProgressReport};

use super::frame::{Scroll, draw_popup, numbered_choices};
use super::question_dialog::{DialogOutcome, QuestionDialog};
use crate::theme::Theme;

const OPTIONS: [&str; 4] = [
    "Continue (+5 iterations)",
    "Summarize and stop",
    "Try another approach",
    "Stop",
];

/// The iteration-limit question on screen.
#[derive(Debug)]
pub struct LimitDialog {
    id: String,
    report: ProgressReport,
    selected: usize,
    pub(super) scroll: Scroll,
}

impl LimitDialog {
    /// A dialog for question `id`.
    pub fn new(id: String, report: ProgressReport) -> Self {
        LimitDialog {
            id,
            report,
            selected: 0,
            scroll: Scroll::default(),
        }
    }
}

fn decision(choice: usize) -> LimitDecision {
    match choice {
        0 => LimitDecision::Continue,
        1 => LimitDecision::Summarize,
        2 => LimitDecision::TryAnotherApproach,
        _ => LimitDecision::Stop,
    }
}

impl QuestionDialog for LimitDialog {
    fn question_id(&self) -> &str {
        &self.id
    }

    fn handle_key(&mut self, key: KeyEvent) -> DialogOutcome {
        let choice = match key.code {
            KeyCode::Char(c @ '1'..='4') => c as usize - '1' as usize,
            KeyCode::Enter => self.selected,
            KeyCode::Esc => 3,
            KeyCode::PageDown => {
                self.scroll.down(10);
                return DialogOutcome::Open;
            }
            KeyCode::PageUp => {
                self.scroll.up(10);
                return DialogOutcome::Open;
            }
            KeyCode::Up => {
                self.selected = (self.selected + 3) % 4;
                return DialogOutcome::Open;
            }
            KeyCode::Down | KeyCode::Tab => {
                self.selected = (self.selected + 1) % 4;
                return DialogOutcome::Open;
            }
            _ => return DialogOutcome::Open,
        };
        DialogOutcome::Answered(Answer::Limit(decision(choice)))
    }

    fn render(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        // The dialog's own choices follow: the summary's are not repeated.
        let mut lines: Vec<Line<'static>> =
            tunacode_core::guidance::limit_progress(&self.report.summary)
                .lines()
                .map(|l| Line::styled(l.to_string(), theme.text))
                .collect();
        lines.push(Line::default());
        let choices = numbered_choices(&OPTIONS, self.selected, theme);
        draw_popup(
            frame,
            area,
            " Iteration limit reached ",
            lines,
            choices,
            &self.scroll,
            theme,
        );
    }

    fn dismissed(&self) -> Answer {
        Answer::Limit(LimitDecision::Stop)
    }
}
