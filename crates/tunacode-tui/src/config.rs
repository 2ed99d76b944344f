//! [`TuiConfig`]: what the front end hands the UI to start with.

use std::path::PathBuf;

/// What the UI starts with.
pub struct TuiConfig {
    /// The working directory (canonical).
    pub cwd: PathBuf,
    /// How the runtime starts: file locations, the command line's settings, the session to open,
    /// and when to ask for setup (`--setup`: always).
    pub launch: tunacode_core::LaunchOptions,
    /// Known models (the `/model` picker, the setup screen).
    pub catalogue: tunacode_protocol::runtime::ModelCatalogue,
    /// The folder the input history is kept in (a file a project).
    pub history_dir: PathBuf,
    /// This project's id (the history keeps each project's entries apart).
    pub project: String,
    /// Theme name.
    pub theme: String,
    /// Show reasoning from the start.
    pub show_thoughts: bool,
}
