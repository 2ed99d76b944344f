//! What the chat shows: the transcript, the status line, the todo panel, and how they are drawn
//! (theme, reasoning shown, tool output expanded), plus what is written to the terminal itself.

use std::collections::BTreeMap;

use tunacode_protocol::{TodoItem, Usage};

use crate::app::status::StatusState;
use crate::app::transcript::Transcript;
use crate::theme::Theme;

/// What is shown, and how.
pub struct ViewState {
    /// Colors.
    pub theme: Theme,
    /// The conversation so far.
    pub transcript: Transcript,
    /// The status line.
    pub status: StatusState,
    /// Show reasoning.
    pub show_thoughts: bool,
    /// Show tool output whole.
    pub expand_tools: bool,
    /// The agent's todo list.
    pub todos: Vec<TodoItem>,
    /// Usage per model, for `/cost`.
    pub usage_by_model: BTreeMap<String, Usage>,
    /// Escape sequences to write to the terminal after the next frame (OSC 52 copy).
    pub pending_output: Vec<String>,
}
