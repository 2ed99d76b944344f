//! The model operations, which hold no state of their own: resolving a model the user or a custom
//! command names (off the async threads: it may read the catalogue and the keys), and saving a
//! provider's key to the user's config (mode 0600) before the switch to the model that needed it.

use std::path::PathBuf;

use tunacode_protocol::runtime::Secret;
use tunacode_store::{SetupUpdate, save_setup};

use crate::runtime::blocking::off_thread;
use crate::runtime::events::{OpFailure, settings_failure};
use crate::settings::{ModelSettings, RuntimeSettings};

/// The settings of `model` under `settings`.
pub(super) async fn resolve_model(
    settings: &RuntimeSettings,
    model: String,
) -> Result<ModelSettings, OpFailure> {
    let settings = settings.clone();
    off_thread("resolving a model", move || {
        settings.for_model(&model).map_err(settings_failure)
    })
    .await
}

/// Saves the UI's theme as `settings.theme` in the user's config file.
pub(super) async fn save_theme(config_file: PathBuf, name: String) -> Result<(), OpFailure> {
    off_thread("saving the theme", move || {
        tunacode_store::save_setting(&config_file, "theme", serde_json::Value::String(name))
            .map_err(|e| OpFailure::Settings(format!("The theme could not be saved: {e}")))
    })
    .await
}

/// Saves `key` as `var` in the user's config file.
pub(super) async fn save_key(
    config_file: PathBuf,
    var: String,
    key: Secret,
) -> Result<(), OpFailure> {
    let update = SetupUpdate {
        default_model: None,
        env: vec![(var, key.expose().to_string())],
        provider: None,
    };
    off_thread("saving a key", move || {
        save_setup(&config_file, &update)
            .map_err(|e| OpFailure::Settings(format!("The key could not be saved: {e}")))
    })
    .await
}
