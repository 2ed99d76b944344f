//! Input completion and history: `@path` completion over a gitignore-aware file index, `/command`
//! completion, the popup that shows candidates, and the per-project prompt history.

pub mod commands;
pub mod files;
pub mod history;
mod history_file;
pub mod mention;
pub mod popup;

pub use commands::{CommandInfo, CommandMatch, complete_commands};
pub use files::{FileIndex, FileMatch, MAX_FILE_ENTRIES, SharedFileIndex};
pub use history::{COMPACT_AFTER_LINES, InputHistory, MAX_HISTORY_ENTRIES};
pub use mention::{CompletionContext, apply_completion, completion_context};
pub use popup::{CompletionPopup, MAX_VISIBLE_ROWS, PopupItem};
