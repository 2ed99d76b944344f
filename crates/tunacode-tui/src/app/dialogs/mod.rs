//! Dialogs for the runtime's questions, one type each: [`ApprovalDialog`] (a write or command, with
//! its diff or command line: Yes, Always — for what the runtime's scope covers —, or No with a note),
//! [`LimitDialog`] (the choice at the iteration limit) and [`PlanDialog`] (approve a plan or reject it
//! with feedback). Each handles its own keys and draws itself; the app sends the answer to the runtime
//! with the question's id.

mod approval;
mod frame;
mod limit;
mod plan;

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use tunacode_core::{Answer, Question, QuestionKind};

use crate::theme::Theme;

pub use approval::ApprovalDialog;
pub use limit::LimitDialog;
pub use plan::PlanDialog;

/// What a key did to a dialog.
#[derive(Debug, PartialEq)]
pub enum DialogOutcome {
    /// Still open.
    Open,
    /// Answered: send this to the runtime and close.
    Answered(Answer),
}

/// A question on screen.
pub trait QuestionDialog: std::fmt::Debug + Send {
    /// The id of the question it answers.
    fn question_id(&self) -> &str;
    /// Handles a key.
    fn handle_key(&mut self, key: KeyEvent) -> DialogOutcome;
    /// Draws itself over `area`.
    fn render(&self, frame: &mut Frame, area: Rect, theme: &Theme);
    /// The answer when the user dismisses it (Ctrl+C, quitting): refuse, stop, reject.
    fn dismissed(&self) -> Answer;
}

/// The dialog for a question.
pub fn dialog_for(question: Question) -> Box<dyn QuestionDialog> {
    match question.kind {
        QuestionKind::Approval(a) => Box::new(ApprovalDialog::new(question.id, a)),
        QuestionKind::IterationLimit(report) => Box::new(LimitDialog::new(question.id, report)),
        QuestionKind::PlanReview { plan } => Box::new(PlanDialog::new(question.id, plan)),
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
