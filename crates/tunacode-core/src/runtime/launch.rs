//! [`Runtime::launch`]: the runtime started from what a front end was told (its typed flags), not from
//! settings it resolved itself. The runtime resolves them off the async threads and decides what a
//! missing model or key means: an error for `run` and editors, the setup phase for the terminal UI.

use std::sync::Arc;

use tokio::sync::mpsc;
use tunacode_store::{Paths, StoreError};
use tunacode_tools::{EditorFiles, Tool};

use crate::events::EventSink;
use crate::runtime::actor::Actor;
use crate::runtime::{Runtime, RuntimeConfig, RuntimeError, RuntimeEvent, RuntimeHandle};
use crate::runtime::{SessionChoice, setup_phase};
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

/// Why the runtime did not start.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// The settings could not be resolved (a malformed config, a missing key, …).
    #[error("{0}")]
    Settings(String),
    /// The session to resume does not exist.
    #[error("{0}")]
    SessionNotFound(String),
    /// Anything else.
    #[error("{0}")]
    Failed(String),
}

impl From<RuntimeError> for LaunchError {
    fn from(e: RuntimeError) -> Self {
        match e {
            RuntimeError::Store(e @ StoreError::SessionNotFound { .. }) => {
                LaunchError::SessionNotFound(e.to_string())
            }
            e => LaunchError::Failed(e.to_string()),
        }
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

impl Runtime {
    /// Resolves the settings from `options.flags` and starts the runtime on the current tokio
    /// runtime. The first event is `SessionOpened`, or `SetupNeeded` when setup comes first.
    pub async fn launch(
        options: LaunchOptions,
    ) -> Result<(RuntimeHandle, mpsc::UnboundedReceiver<RuntimeEvent>), LaunchError> {
        let paths = options.paths.clone();
        let resolved = resolve(&paths, &options.flags).await;
        let (ops_tx, ops_rx) = mpsc::unbounded_channel();
        let (sink, events) = EventSink::channel();
        let reason = match (&resolved, options.setup) {
            (_, SetupMode::Always) => Some(None),
            (Err(e), SetupMode::WhenNeeded) if setup_fixes(e) => Some(Some(e.to_string())),
            _ => None,
        };
        match (reason, resolved) {
            (Some(reason), _) => {
                let phase = setup_phase::SetupPhase::new(options, paths, sink);
                tokio::spawn(phase.run(reason, ops_rx));
            }
            (None, Err(e)) => return Err(LaunchError::Settings(e.to_string())),
            (None, Ok(settings)) => {
                let actor = Actor::open(options.config(settings), sink).await?;
                tokio::spawn(actor.run(ops_rx));
            }
        }
        Ok((RuntimeHandle { ops: ops_tx }, events))
    }
}
