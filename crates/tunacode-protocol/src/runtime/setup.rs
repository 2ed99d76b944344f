//! First-run setup and the model catalogue, as front ends show them: what the user chose, what the
//! catalogue offers, and why setup is needed.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The provider, model, endpoint and key chosen during setup.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetupChoice {
    /// The provider part of the model id: `openai`, `anthropic`, `google`, `openrouter` or the custom
    /// name of an OpenAI-compatible server.
    pub provider: String,
    /// The model's name at the provider.
    pub model: String,
    /// The server's base URL (only for an OpenAI-compatible server).
    pub base_url: Option<String>,
    /// The wire API written to `providers.<name>.wire_api` (`openai-chat` for a compatible server).
    pub wire_api: Option<String>,
    /// The variable the key is saved under, e.g. `OPENAI_API_KEY` or `LOCAL_API_KEY`.
    pub key_env: Option<String>,
    /// The key itself (`None`: no key, e.g. a local server).
    pub api_key: Option<String>,
}

impl std::fmt::Debug for SetupChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SetupChoice")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("wire_api", &self.wire_api)
            .field("key_env", &self.key_env)
            .field(
                "api_key",
                &self
                    .api_key
                    .as_ref()
                    .map(|k| format!("<{} chars>", k.chars().count())),
            )
            .finish()
    }
}

impl SetupChoice {
    /// The model id, `provider:model`.
    pub fn model_id(&self) -> String {
        format!("{}:{}", self.provider, self.model)
    }
}

/// Why the runtime waits for setup before it opens a session, and where the choice will be saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetupInfo {
    /// The user's config file the choice is saved to.
    pub config_file: PathBuf,
    /// What is missing (no model, no key, an unknown provider), or `None` when setup was asked for.
    pub reason: Option<String>,
}

/// The models and providers TunaCode knows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelCatalogue {
    /// The models, grouped by provider in the catalogue's order.
    pub models: Vec<CatalogueModel>,
    /// The providers TunaCode reaches without configuration.
    pub providers: Vec<ProviderInfo>,
}

impl ModelCatalogue {
    /// The models of one provider (every model for `None`).
    pub fn of(&self, provider: Option<&str>) -> impl Iterator<Item = &CatalogueModel> {
        self.models
            .iter()
            .filter(move |m| provider.is_none_or(|p| m.provider == p))
    }

    /// A known provider by name.
    pub fn provider(&self, name: &str) -> Option<&ProviderInfo> {
        self.providers.iter().find(|p| p.name == name)
    }
}

/// One model of the catalogue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CatalogueModel {
    /// Its provider.
    pub provider: String,
    /// Its name at the provider.
    pub id: String,
    /// Its context window in tokens.
    pub context_window: u64,
    /// US dollars per million input tokens.
    pub input_price: f64,
    /// US dollars per million output tokens.
    pub output_price: f64,
}

impl CatalogueModel {
    /// `provider:model`.
    pub fn key(&self) -> String {
        format!("{}:{}", self.provider, self.id)
    }
}

/// A provider TunaCode knows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderInfo {
    /// Its name in model ids.
    pub name: String,
    /// Its default base URL.
    pub base_url: String,
    /// The variable its key is read from (`None`: no key needed).
    pub key_env: Option<String>,
}
