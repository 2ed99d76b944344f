//! Engine options for the UI tests.

use tunacode_core::{AgentOptions, PruneConfig};

/// Options with defaults suitable for tests.
pub fn options() -> AgentOptions {
    AgentOptions {
        model: "openai:gpt-4.1".into(),
        provider_model: "gpt-4.1".into(),
        max_iterations: 10,
        request_timeout: None,
        tool_max_retries: 1,
        max_parallel: 2,
        prune: PruneConfig {
            protect_tokens: 40_000,
            minimum_tokens: 20_000,
        },
        system_prompt: "SYSTEM".into(),
        tool_ignore: vec![],
        max_output_tokens: None,
        reasoning_effort: None,
        pricing: None,
        guidance: Default::default(),
    }
}
