//! The input box and what helps typing into it: the editor, the completion popup, the input history,
//! the files `@` completes, the armed Ctrl+C, and the hint in the box's title.

use std::time::Instant;

use ratatui_textarea::TextArea;

use crate::complete::{CompletionContext, CompletionPopup, InputHistory, SharedFileIndex};

/// What the input box decides: the text being typed and the help around it.
pub struct InputState {
    /// The message editor.
    pub editor: TextArea<'static>,
    /// Completion popup and where it applies.
    pub popup: Option<(CompletionPopup, CompletionContext)>,
    /// Input history of this project.
    pub history: InputHistory,
    /// Files for `@` completion.
    pub files: SharedFileIndex,
    /// When Ctrl+C was pressed on an empty input (a second press quits).
    pub quit_armed: Option<Instant>,
    /// A short hint shown in the input's title.
    pub hint: Option<String>,
}
