//! [`Runtime::launch`]: the runtime started from what a front end was told (its typed flags), not from
//! settings it resolved itself. The runtime resolves them off the async threads and decides what a
//! missing model or key means: an error for `run` and editors, the setup phase for the terminal UI.

use tokio::sync::mpsc;
use tunacode_store::{Paths, StoreError};

use crate::events::EventSink;
use crate::runtime::actor::Actor;
use crate::runtime::events::RuntimeEvent;
use crate::runtime::handle::{Runtime, RuntimeConfig, RuntimeError, RuntimeHandle};
use crate::runtime::launch_options::{LaunchOptions, SetupMode, resolve, setup_fixes};
use crate::runtime::setup_phase;
use crate::settings_error::SettingsError;

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
            RuntimeError::Store(
                e @ (StoreError::SessionNotFound { .. } | StoreError::AmbiguousSession { .. }),
            ) => LaunchError::SessionNotFound(e.to_string()),
            e => LaunchError::Failed(e.to_string()),
        }
    }
}

/// Whether first-run setup is the answer to `error`: nothing names a model, or the configured model
/// lacks its key, or there is no config yet. A model the user named (`--model`, `TUNACODE_MODEL`)
/// that is unknown or has no key is said as an error instead: setup would answer a question they
/// did not ask, and throw their choice away.
fn setup_helps(error: &SettingsError, options: &LaunchOptions, paths: &Paths) -> bool {
    if !setup_fixes(error) {
        return false;
    }
    if options.flags.model.is_some() {
        return matches!(error, SettingsError::NoModel { .. });
    }
    matches!(
        error,
        SettingsError::NoModel { .. } | SettingsError::MissingKey { .. }
    ) || !paths.config_file.exists()
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
            (Err(e), SetupMode::WhenNeeded) if setup_helps(e, &options, &paths) => {
                Some(Some(e.to_string()))
            }
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
        Ok((RuntimeHandle::new(ops_tx), events))
    }
}

impl Runtime {
    /// Opens the session and starts the runtime on the current tokio runtime. The first event is
    /// `SessionOpened`.
    pub async fn start(
        config: RuntimeConfig,
    ) -> Result<(RuntimeHandle, mpsc::UnboundedReceiver<RuntimeEvent>), RuntimeError> {
        let (ops_tx, ops_rx) = mpsc::unbounded_channel();
        let (sink, events) = crate::events::EventSink::channel();
        let actor = Actor::open(config, sink).await?;
        tokio::spawn(actor.run(ops_rx));
        Ok((RuntimeHandle::new(ops_tx), events))
    }
}
