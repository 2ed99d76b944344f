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
pub use app::state::Startup;
pub use error::TuiError;
pub use theme::Theme;

/// What the UI starts with.
pub struct TuiConfig {
    /// The working directory (canonical).
    pub cwd: PathBuf,
    /// How the runtime starts: file locations, the command line's settings, the session to open.
    pub startup: app::state::Startup,
    /// Known models.
    pub registry: tunacode_llm::models::ModelRegistry,
    /// Theme name.
    pub theme: String,
    /// Open the setup screen even when a provider is configured (`tunacode --setup`).
    pub force_setup: bool,
    /// Show reasoning from the start.
    pub show_thoughts: bool,
}
