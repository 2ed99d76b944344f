//! What every dialog is: [`QuestionDialog`], the trait the app drives a question on screen through, and
//! [`DialogOutcome`], what a key did to one. Kept apart from the dialogs so that they and the module
//! that picks one do not import each other.

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use tunacode_core::Answer;

use crate::theme::Theme;

/// What a key did to a dialog.
#[derive(Debug, PartialEq)]
pub enum DialogOutcome {
    /// Still open.
    Open,
    /// Answered: send this to the runtime and close.
    Answered(Answer),
    /// The whole request is to stop (Esc on an approval: the README's "Esc stops"). No answer is
    /// sent: the interrupt withdraws the question, so the model is not asked again in between.
    Stop,
    /// Open this text in the user's editor; what comes back goes to [`QuestionDialog::take_edit`].
    Edit(String),
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
    /// The text asked for with [`DialogOutcome::Edit`], as the user left it (`None`: not changed,
    /// or no editor could run).
    fn take_edit(&mut self, _edited: Option<String>) {}
}
