//! The vocabulary of the setup state machine: the providers offered, the steps, the state of the
//! check and the entries of the model list.

/// One entry of the provider list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProviderOption {
    /// What the list shows.
    pub label: &'static str,
    /// The known provider's name; `None` for an OpenAI-compatible server.
    pub provider: Option<&'static str>,
}

/// The providers offered, in order.
pub(crate) const PROVIDERS: [ProviderOption; 5] = [
    ProviderOption {
        label: "OpenAI",
        provider: Some("openai"),
    },
    ProviderOption {
        label: "Anthropic",
        provider: Some("anthropic"),
    },
    ProviderOption {
        label: "Google Gemini",
        provider: Some("google"),
    },
    ProviderOption {
        label: "OpenRouter",
        provider: Some("openrouter"),
    },
    ProviderOption {
        label: "OpenAI-compatible server (Ollama, llama.cpp, LM Studio, vLLM, …)",
        provider: None,
    },
];

/// The steps of setup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    Provider,
    BaseUrl,
    ProviderName,
    Key,
    Model,
    Check,
}

/// Where the connection check stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CheckState {
    Running,
    Failed(String),
    Passed,
}

/// An entry of the model list: a known model, or the typed text used as a model name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ModelItem {
    Known(String),
    Typed(String),
}

impl ModelItem {
    pub(crate) fn name(&self) -> &str {
        match self {
            ModelItem::Known(name) | ModelItem::Typed(name) => name,
        }
    }
}
