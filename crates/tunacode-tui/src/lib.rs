//! The interactive terminal UI of TunaCode (ratatui + crossterm): a transcript with markdown, tool cells
//! and diffs, a status line, a multi-line input with history and completion, dialogs for approvals and
//! choices, and a first-run setup screen. It is a front end over the core's conversation runtime: it
//! submits operations and renders the runtime's events, like `tunacode run`.

pub mod app;
pub mod complete;
mod error;
pub mod render;
pub mod setup;
pub mod theme;

use std::path::PathBuf;

pub use app::run;
pub use error::TuiError;
pub use theme::Theme;

/// What the UI starts with.
pub struct TuiConfig {
    /// The working directory (canonical).
    pub cwd: PathBuf,
    /// How the runtime starts: file locations, the command line's settings, the session to open,
    /// and when to ask for setup (`--setup`: always).
    pub launch: tunacode_core::LaunchOptions,
    /// Known models (the `/model` picker, the setup screen).
    pub catalogue: tunacode_protocol::runtime::ModelCatalogue,
    /// The file the input history is kept in.
    pub history_file: PathBuf,
    /// This project's id (the history keeps each project's entries apart).
    pub project: String,
    /// Theme name.
    pub theme: String,
    /// Show reasoning from the start.
    pub show_thoughts: bool,
}
