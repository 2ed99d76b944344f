//! The setup phase: a runtime launched with no usable model (or with `--setup`) asks for one before it
//! opens a session. It checks choices with one cheap real request over the settings the run will use,
//! saves the chosen one to the user's config, and then becomes the runtime proper on the same
//! operation queue.

use tokio::sync::mpsc;
use tunacode_protocol::runtime::{SetupChoice, SetupInfo};
use tunacode_store::{Paths, config_with_setup, save_setup};

use crate::events::EventSink;
use crate::runtime::actor::Actor;
use crate::runtime::events::{OpFailure, RuntimeEvent};
use crate::runtime::launch_options::{LaunchOptions, resolve, setup_fixes};
use crate::runtime::ops::Op;
use crate::settings::{RuntimeSettings, SettingsFlags};
use crate::setup::{check_choice, setup_flags, setup_update};

/// A runtime waiting for setup.
pub(crate) struct SetupPhase {
    options: LaunchOptions,
    paths: Paths,
    events: EventSink,
}

impl SetupPhase {
    /// The phase for a launch.
    pub(crate) fn new(options: LaunchOptions, paths: Paths, events: EventSink) -> Self {
        SetupPhase {
            options,
            paths,
            events,
        }
    }

    /// Says why setup is needed, then handles setup operations until a choice is saved (then runs
    /// the runtime proper) or the front end stops.
    pub(crate) async fn run(self, reason: Option<String>, mut ops: mpsc::UnboundedReceiver<Op>) {
        self.events.send(RuntimeEvent::SetupNeeded(SetupInfo {
            config_file: self.paths.config_file.clone(),
            reason,
        }));
        while let Some(op) = ops.recv().await {
            match op {
                Op::CheckSetup(choice) => self.spawn_check(choice),
                Op::SaveSetup(choice) => match self.save_and_open(&choice).await {
                    Ok(actor) => return actor.run(ops).await,
                    Err(message) => self.events.send(RuntimeEvent::SetupChecked(Err(message))),
                },
                Op::Finish | Op::Shutdown => break,
                Op::Interrupt | Op::SetInteractive { .. } => {}
                _ => self.events.send(RuntimeEvent::OpFailed(OpFailure::Invalid(
                    "finish setup first: no model is configured yet".into(),
                ))),
            }
        }
        self.events.send(RuntimeEvent::Stopped);
    }

    /// Checks a choice in the background (the phase keeps answering, e.g. a quit).
    fn spawn_check(&self, choice: SetupChoice) {
        let (paths, flags, events) = (
            self.paths.clone(),
            self.options.flags.clone(),
            self.events.clone(),
        );
        tokio::spawn(async move {
            let result = check(paths, &flags, &choice).await;
            events.send(RuntimeEvent::SetupChecked(result));
        });
    }

    /// Saves the choice, resolves the settings over the saved config and opens the session.
    async fn save_and_open(&self, choice: &SetupChoice) -> Result<Actor, String> {
        let (file, update) = (self.paths.config_file.clone(), setup_update(choice));
        tokio::task::spawn_blocking(move || save_setup(&file, &update))
            .await
            .map_err(|e| format!("internal error: {e}"))?
            .map_err(|e| format!("Could not save the configuration: {e}"))?;
        let mut options = self.options.clone();
        options.flags = setup_flags(&options.flags, choice);
        let settings =
            resolve(&self.paths, &options.flags)
                .await
                .map_err(|e| match setup_fixes(&e) {
                    true => "The saved settings still lack a model or a key.".to_string(),
                    false => e.to_string(),
                })?;
        Actor::open(options.config(settings), self.events.clone())
            .await
            .map_err(|e| e.to_string())
    }
}

/// One cheap real request with the settings the run will use: the core resolves them over the
/// config as setup would save it (nothing is written).
async fn check(paths: Paths, flags: &SettingsFlags, choice: &SetupChoice) -> Result<(), String> {
    let (update, flags) = (setup_update(choice), setup_flags(flags, choice));
    let settings = tokio::task::spawn_blocking(move || {
        let config = config_with_setup(&paths.config_file, &update).map_err(|e| e.to_string())?;
        RuntimeSettings::resolve_with_config(&paths, &config, &flags).map_err(|e| e.to_string())
    })
    .await
    .map_err(|e| format!("internal error: {e}"))??;
    let model = settings.model.model.model.clone();
    check_choice(settings.model.provider, &model).await
}
