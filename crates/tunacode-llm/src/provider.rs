//! Model ids (`provider:model`), the table of known providers, and the settings that reach one
//! ([`ProviderSettings`]). The clients depend on these; building a client is `factory.rs`'s.

use std::path::PathBuf;
use std::time::Duration;

use crate::error::LlmError;
use crate::retry::RetryPolicy;

/// A model selector: `provider:model`, e.g. `openai:gpt-4.1` or `openrouter:anthropic/claude-sonnet-4`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ModelId {
    /// The provider name (lowercase).
    pub provider: String,
    /// The model's name at that provider.
    pub model: String,
}

impl ModelId {
    /// Parses `provider:model`. The model part may itself contain `:` (e.g. `ollama:qwen3:8b`).
    pub fn parse(text: &str) -> Result<Self, LlmError> {
        let (provider, model) = text.split_once(':').ok_or_else(|| LlmError::Config {
            message: format!(
                "model `{text}` must be written as provider:model, e.g. openai:gpt-4.1 or ollama:qwen3"
            ),
        })?;
        if provider.trim().is_empty() || model.trim().is_empty() {
            return Err(LlmError::Config {
                message: format!("model `{text}` must name both a provider and a model"),
            });
        }
        let provider = match provider.trim().to_ascii_lowercase().as_str() {
            "gemini" => "google".to_string(),
            other => other.to_string(),
        };
        Ok(ModelId {
            provider,
            model: model.trim().to_string(),
        })
    }
}

impl std::fmt::Display for ModelId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.provider, self.model)
    }
}

/// The wire API a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireApi {
    /// OpenAI Chat Completions (`POST {base}/chat/completions`), also spoken by OpenRouter, Ollama,
    /// llama.cpp's server, LM Studio and vLLM.
    OpenAiChat,
    /// OpenAI Responses (`POST {base}/responses`).
    OpenAiResponses,
    /// Anthropic Messages (`POST {base}/messages`).
    Anthropic,
    /// Google Gemini (`POST {base}/models/{model}:streamGenerateContent?alt=sse`).
    Gemini,
}

impl WireApi {
    /// Parses a wire API name as written in the config (`openai-chat`, `openai-responses`,
    /// `anthropic`, `gemini`).
    pub fn parse(name: &str) -> Result<Self, LlmError> {
        match name.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "openai-chat" | "chat" | "openai" | "chat-completions" => Ok(WireApi::OpenAiChat),
            "openai-responses" | "responses" => Ok(WireApi::OpenAiResponses),
            "anthropic" | "anthropic-messages" | "messages" => Ok(WireApi::Anthropic),
            "gemini" | "google" => Ok(WireApi::Gemini),
            other => Err(LlmError::Config {
                message: format!(
                    "unknown wire API `{other}`: use openai-chat, openai-responses, anthropic or gemini"
                ),
            }),
        }
    }
}

/// A provider TunaCode knows by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownProvider {
    /// Its name in model ids.
    pub name: &'static str,
    /// Default base URL.
    pub base_url: &'static str,
    /// Environment variable holding its key (`None`: no key needed, a local server).
    pub key_env: Option<&'static str>,
    /// The wire API it is spoken to in.
    pub wire: WireApi,
}

const PROVIDERS: &[KnownProvider] = &[
    KnownProvider {
        name: "openai",
        base_url: "https://api.openai.com/v1",
        key_env: Some("OPENAI_API_KEY"),
        wire: WireApi::OpenAiResponses,
    },
    KnownProvider {
        name: "openrouter",
        base_url: "https://openrouter.ai/api/v1",
        key_env: Some("OPENROUTER_API_KEY"),
        wire: WireApi::OpenAiChat,
    },
    KnownProvider {
        name: "anthropic",
        base_url: "https://api.anthropic.com/v1",
        key_env: Some("ANTHROPIC_API_KEY"),
        wire: WireApi::Anthropic,
    },
    KnownProvider {
        name: "google",
        base_url: "https://generativelanguage.googleapis.com/v1beta",
        key_env: Some("GEMINI_API_KEY"),
        wire: WireApi::Gemini,
    },
    KnownProvider {
        name: "ollama",
        base_url: "http://localhost:11434/v1",
        key_env: None,
        wire: WireApi::OpenAiChat,
    },
    KnownProvider {
        name: "lmstudio",
        base_url: "http://localhost:1234/v1",
        key_env: None,
        wire: WireApi::OpenAiChat,
    },
    KnownProvider {
        name: "llamacpp",
        base_url: "http://localhost:8080/v1",
        key_env: None,
        wire: WireApi::OpenAiChat,
    },
    KnownProvider {
        name: "vllm",
        base_url: "http://localhost:8000/v1",
        key_env: None,
        wire: WireApi::OpenAiChat,
    },
];

/// Looks up a known provider by name.
pub fn known_provider(name: &str) -> Option<&'static KnownProvider> {
    PROVIDERS.iter().find(|p| p.name == name)
}

/// The names of the providers TunaCode knows, in table order.
pub fn known_provider_names() -> Vec<&'static str> {
    PROVIDERS.iter().map(|p| p.name).collect()
}

/// How to reach a provider for one model. Its `Debug` output never shows the API key.
#[derive(Clone, PartialEq)]
pub struct ProviderSettings {
    /// The provider's name (`openai`, `openrouter`, a custom name, …).
    pub provider: String,
    /// Base URL, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// API key, if any (sent as a bearer token; never logged).
    pub api_key: Option<String>,
    /// Where the key is expected, for error messages (e.g. `OPENAI_API_KEY`).
    pub key_hint: Option<String>,
    /// The wire API.
    pub wire: WireApi,
    /// Retry policy.
    pub retry: RetryPolicy,
    /// Longest silence allowed inside a stream.
    pub idle_timeout: Duration,
    /// The user's config file, named in the hint of an authentication error (`None`: the hint says
    /// "in your config file").
    pub config_file: Option<PathBuf>,
}

impl std::fmt::Debug for ProviderSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderSettings")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("key_hint", &self.key_hint)
            .field("wire", &self.wire)
            .field("retry", &self.retry)
            .field("idle_timeout", &self.idle_timeout)
            .field("config_file", &self.config_file)
            .finish()
    }
}

impl ProviderSettings {
    /// Settings for a model id: the known provider's defaults, with `base_url` and `api_key` overriding.
    /// An unknown provider needs a base URL. The wire API is `wire` when given; otherwise the known
    /// provider's, except that `openai:` with another base URL speaks Chat Completions (what
    /// OpenAI-compatible servers implement); otherwise Chat Completions.
    pub fn for_model(
        id: &ModelId,
        base_url: Option<String>,
        api_key: Option<String>,
    ) -> Result<Self, LlmError> {
        Self::for_model_with_wire(id, base_url, api_key, None)
    }

    /// [`ProviderSettings::for_model`] with an explicit wire API.
    pub fn for_model_with_wire(
        id: &ModelId,
        base_url: Option<String>,
        api_key: Option<String>,
        wire: Option<WireApi>,
    ) -> Result<Self, LlmError> {
        let known = known_provider(&id.provider);
        let custom_url = base_url.is_some();
        let base_url = match (base_url, known) {
            (Some(url), _) => url,
            (None, Some(k)) => k.base_url.to_string(),
            (None, None) => {
                return Err(LlmError::Config {
                    message: format!(
                        "unknown provider `{}`: pass --base-url (or set TUNACODE_BASE_URL) for an \
                         OpenAI-compatible server, or use one of: {}",
                        id.provider,
                        PROVIDERS
                            .iter()
                            .map(|p| p.name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                });
            }
        };
        Ok(ProviderSettings {
            provider: id.provider.clone(),
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key: api_key.filter(|k| !k.trim().is_empty()),
            key_hint: known.and_then(|k| k.key_env).map(str::to_string),
            wire: wire.unwrap_or(match known {
                Some(k) if k.wire == WireApi::OpenAiResponses && custom_url => WireApi::OpenAiChat,
                Some(k) => k.wire,
                None => WireApi::OpenAiChat,
            }),
            retry: RetryPolicy::default(),
            idle_timeout: Duration::from_secs(120),
            config_file: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_ids_parse_with_aliases_and_colons_in_names() {
        let id = ModelId::parse("ollama:qwen3:8b").unwrap();
        assert_eq!(
            (id.provider.as_str(), id.model.as_str()),
            ("ollama", "qwen3:8b")
        );
        assert_eq!(
            ModelId::parse("gemini:gemini-2.5-pro").unwrap().provider,
            "google"
        );
        assert_eq!(
            ModelId::parse("OpenAI:gpt-4.1").unwrap().to_string(),
            "openai:gpt-4.1"
        );
        assert!(ModelId::parse("gpt-4.1").is_err());
        assert!(ModelId::parse("openai:").is_err());
    }

    #[test]
    fn settings_need_a_base_url_for_unknown_providers() {
        let id = ModelId::parse("mybox:llama").unwrap();
        let err = ProviderSettings::for_model(&id, None, None).unwrap_err();
        assert!(err.to_string().contains("--base-url"), "{err}");
        let s =
            ProviderSettings::for_model(&id, Some("http://127.0.0.1:9/v1/".into()), None).unwrap();
        assert_eq!(s.base_url, "http://127.0.0.1:9/v1");
        let openai = ModelId::parse("openai:gpt-4.1").unwrap();
        let s = ProviderSettings::for_model(&openai, None, Some(" ".into())).unwrap();
        assert_eq!(s.api_key, None);
        assert_eq!(s.key_hint.as_deref(), Some("OPENAI_API_KEY"));
        assert_eq!(s.wire, WireApi::OpenAiResponses);
        let compat =
            ProviderSettings::for_model(&openai, Some("http://127.0.0.1:1/v1".into()), None)
                .unwrap();
        assert_eq!(compat.wire, WireApi::OpenAiChat);
        let forced = ProviderSettings::for_model_with_wire(
            &openai,
            Some("http://127.0.0.1:1/v1".into()),
            None,
            Some(WireApi::OpenAiResponses),
        )
        .unwrap();
        assert_eq!(forced.wire, WireApi::OpenAiResponses);
        let claude = ModelId::parse("anthropic:claude-sonnet-4-5").unwrap();
        assert_eq!(
            ProviderSettings::for_model(&claude, None, None)
                .unwrap()
                .wire,
            WireApi::Anthropic
        );
        assert_eq!(
            WireApi::parse("openai-responses").unwrap(),
            WireApi::OpenAiResponses
        );
        assert!(WireApi::parse("soap").is_err());
    }

    #[test]
    fn debug_output_redacts_the_api_key() {
        let id = ModelId::parse("openai:gpt-4.1").unwrap();
        let with_key =
            ProviderSettings::for_model(&id, None, Some("sk-live-0123456789abcdef".into()))
                .unwrap();
        let text = format!("{with_key:?}");
        assert!(!text.contains("sk-live-0123456789abcdef"), "{text}");
        assert!(text.contains(r#"api_key: Some("<redacted>")"#), "{text}");
        assert!(
            text.contains(r#"base_url: "https://api.openai.com/v1""#)
                && text.contains(r#"key_hint: Some("OPENAI_API_KEY")"#)
                && text.contains("config_file: None"),
            "{text}"
        );
        let pretty = format!("{with_key:#?}");
        assert!(!pretty.contains("sk-live"), "{pretty}");
        let without = ProviderSettings::for_model(&id, None, None).unwrap();
        assert!(format!("{without:?}").contains("api_key: None"));
    }
}
