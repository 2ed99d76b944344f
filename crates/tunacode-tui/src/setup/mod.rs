//! First-run setup: a screen that asks for a provider, (for an OpenAI-compatible server) its address and
//! a name, a key (never echoed), and a model, then checks the choice with one cheap real request and
//! hands it back to be saved. [`SetupScreen`] is a pure state machine plus rendering; the app runs
//! [`check_choice`] when it gets [`SetupAction::Check`], reports with [`SetupScreen::on_check_result`],
//! and on [`SetupAction::Save`] writes [`setup_update`] with `tunacode_store::save_setup`.
//! [`KeyPrompt`] is the small masked dialog for `/model` switching to a provider without a key.

mod check;
mod input;
mod key_prompt;
mod screen;
mod steps;
mod view;
pub(crate) mod wrap;

#[cfg(test)]
mod flow_tests;
#[cfg(test)]
mod snapshot_tests;

use serde_json::{Map, Value};
use tunacode_llm::{LlmError, ModelId, ProviderSettings, WireApi};
use tunacode_store::SetupUpdate;

pub use check::check_choice;
pub use key_prompt::{KeyPrompt, KeyPromptAction};
pub use screen::SetupScreen;

/// What the app should do after a key press on the setup screen.
#[derive(Debug, Clone, PartialEq)]
pub enum SetupAction {
    /// Nothing: the screen changed (or not) and only needs redrawing.
    None,
    /// Run [`check_choice`] on this choice and report with [`SetupScreen::on_check_result`].
    Check(SetupChoice),
    /// The check passed and the user confirmed: save [`setup_update`] of this choice and start the chat.
    Save(SetupChoice),
    /// The user quit (Ctrl+C).
    Quit,
}

/// The provider, model, endpoint and key chosen during setup.
#[derive(Clone, PartialEq, Eq)]
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

    /// How to reach the chosen model (default retry policy and idle timeout; the key variable as the
    /// hint in auth errors).
    pub fn provider_settings(&self) -> Result<ProviderSettings, LlmError> {
        let id = ModelId::parse(&self.model_id())?;
        let wire = self.wire_api.as_deref().map(WireApi::parse).transpose()?;
        let mut settings = ProviderSettings::for_model_with_wire(
            &id,
            self.base_url.clone(),
            self.api_key.clone(),
            wire,
        )?;
        if settings.key_hint.is_none() {
            settings.key_hint = self.key_env.clone();
        }
        Ok(settings)
    }

    /// The base URL requests go to: the chosen one, else the known provider's.
    pub fn endpoint(&self) -> String {
        self.base_url
            .clone()
            .or_else(|| tunacode_llm::known_provider(&self.provider).map(|k| k.base_url.into()))
            .unwrap_or_default()
    }
}

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
