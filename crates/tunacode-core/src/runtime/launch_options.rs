//! [`LaunchOptions`]: what a front end hands over to start the runtime (typed flags, not resolved
//! settings), and the rules that turn them into a runtime's config.

use std::sync::Arc;

use tunacode_store::Paths;
use tunacode_tools::{EditorFiles, Tool};

use crate::runtime::handle::{RuntimeConfig, SessionChoice};
use crate::settings::{RuntimeSettings, SettingsError, SettingsFlags};

/// When the runtime asks for first-run setup instead of opening a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetupMode {
    /// Never: a missing model or key is a [`LaunchError::Settings`].
    Never,
    /// When no model or key is configured (or the provider is unknown): `SetupNeeded` first.
    WhenNeeded,
    /// Always (`--setup`): `SetupNeeded` first, whatever is configured.
    Always,
}

/// How a front end starts the runtime: what the user said, typed.
pub struct LaunchOptions {
    /// Where TunaCode's files are (the config, sessions, the model cache).
    pub paths: Paths,
    /// The command line's settings (resolved by the runtime over the user's config).
    pub flags: SettingsFlags,
    /// The session to open.
    pub session: SessionChoice,
    /// Whether someone can answer questions.
    pub interactive: bool,
    /// Approve every write and command (and plans) without asking.
    pub yolo: bool,
    /// Start in plan mode.
    pub plan_mode: bool,
    /// When to ask for setup instead.
    pub setup: SetupMode,
    /// The editor the file tools read and write through (an editor protocol front end), if any.
    pub editor_files: Option<Arc<dyn EditorFiles>>,
    /// Tools beyond the built-in ones (tests give slow or failing tools).
    pub extra_tools: Vec<Arc<dyn Tool>>,
}

impl LaunchOptions {
    /// Options with the defaults: a new session, interactive, not yolo, no setup phase.
    pub fn new(paths: Paths, flags: SettingsFlags) -> Self {
        LaunchOptions {
            paths,
            flags,
            session: SessionChoice::New,
            interactive: true,
            yolo: false,
            plan_mode: false,
            setup: SetupMode::Never,
            editor_files: None,
            extra_tools: Vec::new(),
        }
    }

    /// What the user should know before a run that nobody can answer questions for: writes and
    /// commands will be refused (the policy's headless rule), unless `--yes` allows them.
    pub fn headless_note(&self) -> Option<&'static str> {
        (!self.interactive && !self.yolo).then_some(
            "writes and commands will be refused (no terminal; pass --yes to allow them)",
        )
    }

    /// The runtime's config over resolved settings.
    pub(crate) fn config(&self, settings: RuntimeSettings) -> RuntimeConfig {
        RuntimeConfig {
            settings,
            session: self.session.clone(),
            interactive: self.interactive,
            yolo: self.yolo,
            plan_mode: self.plan_mode,
            extra_tools: self.extra_tools.clone(),
            clients: None,
            editor_files: self.editor_files.clone(),
        }
    }
}

impl Clone for LaunchOptions {
    fn clone(&self) -> Self {
        LaunchOptions {
            paths: self.paths.clone(),
            flags: self.flags.clone(),
            session: self.session.clone(),
            editor_files: self.editor_files.clone(),
            extra_tools: self.extra_tools.clone(),
            ..*self
        }
    }
}

impl std::fmt::Debug for LaunchOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaunchOptions")
            .field("flags", &self.flags)
            .field("session", &self.session)
            .field("setup", &self.setup)
            .finish_non_exhaustive()
    }
}

/// Whether a settings error is what first-run setup fixes.
pub(crate) fn setup_fixes(error: &SettingsError) -> bool {
    matches!(
        error,
        SettingsError::NoModel { .. }
            | SettingsError::MissingKey { .. }
            | SettingsError::UnknownProvider { .. }
    )
}

/// Resolves settings off the async threads.
pub(crate) async fn resolve(
    paths: &Paths,
    flags: &SettingsFlags,
) -> Result<RuntimeSettings, SettingsError> {
    let (paths, flags) = (paths.clone(), flags.clone());
    tokio::task::spawn_blocking(move || RuntimeSettings::resolve(&paths, &flags))
        .await
        .map_err(|e| SettingsError::Invalid(format!("internal error: {e}")))?
}
