//! The interactive terminal UI of TunaCode (ratatui + crossterm): a transcript with markdown, tool cells
//! and diffs, a status line, a multi-line input with history and completion, dialogs for approvals and
//! choices, and a first-run setup screen. It is a front end over the core's conversation runtime: it
//! submits operations and renders the runtime's events, like `tunacode run`.

pub mod app;
pub mod complete;
mod config;
mod error;
pub mod render;
pub mod setup;
pub mod theme;

pub use app::run;
pub use config::TuiConfig;
pub use error::TuiError;
pub use theme::Theme;
