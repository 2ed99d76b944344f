//! First-run setup and the model catalogue, decided here for every front end: what a setup choice
//! writes to the config, how it is checked (one cheap real request with the settings the run will
//! use), and the catalogue front ends offer models from.

mod check;
mod choice;

use serde_json::{Map, Value};
use tunacode_llm::models::ModelRegistry;
use tunacode_protocol::runtime::{CatalogueModel, ModelCatalogue, ProviderInfo, SetupChoice};
use tunacode_store::{Paths, SetupUpdate, UserConfig};

pub use check::check_choice;
pub use choice::provider_settings;

use crate::settings::{SettingsFlags, load_registry};

/// What to write to the config file for a choice: `default_model`, the key under `env.<key_env>`, and
/// for an OpenAI-compatible server a `providers.<name>` entry (`base_url`, `wire_api`, `key_env`).
pub fn setup_update(choice: &SetupChoice) -> SetupUpdate {
    let env = match (&choice.key_env, &choice.api_key) {
        (Some(var), Some(key)) if !key.trim().is_empty() => vec![(var.clone(), key.clone())],
        _ => Vec::new(),
    };
    let provider = choice.base_url.as_ref().map(|url| {
        let mut entry = Map::new();
        entry.insert("base_url".into(), Value::String(url.clone()));
        if let Some(wire) = &choice.wire_api {
            entry.insert("wire_api".into(), Value::String(wire.clone()));
        }
        if let Some(var) = env.first().map(|(var, _)| var) {
            entry.insert("key_env".into(), Value::String(var.clone()));
        }
        (choice.provider.clone(), Value::Object(entry))
    });
    SetupUpdate {
        default_model: Some(choice.model_id()),
        env,
        provider,
    }
}

/// The command line's settings with the model chosen in setup.
pub fn setup_flags(flags: &SettingsFlags, choice: &SetupChoice) -> SettingsFlags {
    SettingsFlags {
        model: Some(choice.model_id()),
        ..flags.clone()
    }
}

/// The catalogue of a model registry, with the providers TunaCode knows.
pub fn catalogue_of(registry: &ModelRegistry) -> ModelCatalogue {
    let models = registry
        .list(None)
        .into_iter()
        .map(|m| CatalogueModel {
            provider: m.provider.clone(),
            id: m.id.clone(),
            context_window: m.context_window,
            input_price: m.pricing.input,
            output_price: m.pricing.output,
        })
        .collect();
    let providers = tunacode_llm::known_provider_names()
        .into_iter()
        .filter_map(tunacode_llm::known_provider)
        .map(|k| ProviderInfo {
            name: k.name.to_string(),
            base_url: k.base_url.to_string(),
            key_env: k.key_env.map(str::to_string),
        })
        .collect();
    ModelCatalogue { models, providers }
}

/// The user's catalogue: bundled, the refreshed cache, then the config's `models` overrides.
/// Blocking (reads files).
pub fn load_catalogue(paths: &Paths) -> Result<ModelCatalogue, String> {
    let config = UserConfig::load(&paths.config_file).map_err(|e| e.to_string())?;
    let registry = load_registry(paths, &config).map_err(|e| e.to_string())?;
    Ok(catalogue_of(&registry))
}

#[cfg(test)]
mod tests;
