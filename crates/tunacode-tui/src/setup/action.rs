//! [`SetupAction`]: what a key press on the setup screen asks the app to do.

use tunacode_protocol::runtime::SetupChoice;

/// What the app should do after a key press on the setup screen.
#[derive(Debug, Clone, PartialEq)]
pub enum SetupAction {
    /// Nothing: the screen changed (or not) and only needs redrawing.
    None,
    /// Check this choice (`Op::CheckSetup`) and report with
    /// [`SetupScreen::on_check_result`](super::SetupScreen::on_check_result).
    Check(SetupChoice),
    /// The check passed and the user confirmed: save this choice (`Op::SaveSetup`) and start the chat.
    Save(SetupChoice),
    /// The user quit (Ctrl+C).
    Quit,
}
