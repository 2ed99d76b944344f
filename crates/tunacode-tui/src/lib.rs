//! The interactive terminal UI of TunaCode (ratatui + crossterm): a transcript with markdown, tool cells
//! and diffs, a status line, a multi-line input with history and completion, dialogs for approvals and
//! choices, and a first-run setup screen. It consumes the same `AgentEvent` stream as `tunacode run`.

pub mod complete;
pub mod render;
pub mod setup;
pub mod theme;

pub use theme::Theme;
