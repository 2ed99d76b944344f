//! The interactive terminal UI of TunaCode (ratatui + crossterm): a transcript with markdown, tool cells
//! and diffs, a status line, a multi-line input with history and completion, dialogs for approvals and
//! choices, and a first-run setup screen. It consumes the same `AgentEvent` stream as `tunacode run`.

pub mod app;
pub mod complete;
mod error;
pub mod render;
pub mod setup;
pub mod theme;

use std::path::PathBuf;

pub use app::run;
pub use app::state::Resolver;
pub use error::TuiError;
pub use theme::Theme;

/// Settings for one model, resolved from flags, environment and config by the binary.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// Engine options.
    pub options: tunacode_core::AgentOptions,
    /// How to reach the provider.
    pub provider: tunacode_llm::ProviderSettings,
    /// The model's context window, when the registry knows it.
    pub context_window: Option<u64>,
}

/// What the UI starts with.
pub struct TuiConfig {
    /// The working directory.
    pub cwd: PathBuf,
    /// File locations.
    pub paths: tunacode_store::Paths,
    /// Resolves settings for a model (`None`: the configured default).
    pub resolve: Resolver,
    /// Known models.
    pub registry: tunacode_llm::models::ModelRegistry,
    /// A session to resume, if any.
    pub session: Option<tunacode_core::Session>,
    /// Theme name.
    pub theme: String,
    /// Open the setup screen even when a provider is configured (`tunacode --setup`).
    pub force_setup: bool,
    /// Tools that never ask for approval.
    pub tool_ignore: Vec<String>,
    /// Show reasoning from the start.
    pub show_thoughts: bool,
}
