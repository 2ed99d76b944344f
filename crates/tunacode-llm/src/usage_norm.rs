//! Usage normalisation: one table of how each provider counts tokens, turned into our
//! [`Usage`], where `request_tokens` includes cached input and `response_tokens` includes reasoning.
//!
//! | wire API | input reported | cached input | cache writes | output reported | reasoning |
//! | --- | --- | --- | --- | --- | --- |
//! | OpenAI Chat (and OpenRouter, local servers) | `prompt_tokens`, includes cached | `prompt_tokens_details.cached_tokens` | not reported | `completion_tokens`, includes reasoning | `completion_tokens_details.reasoning_tokens` |
//! | OpenAI Responses | `input_tokens`, includes cached | `input_tokens_details.cached_tokens` | not reported | `output_tokens`, includes reasoning | `output_tokens_details.reasoning_tokens` |
//! | Anthropic Messages | `input_tokens`, excludes cache reads and writes | `cache_read_input_tokens` | `cache_creation_input_tokens` | `output_tokens` (cumulative), includes thinking | not reported separately |
//! | Gemini | `promptTokenCount`, includes cached | `cachedContentTokenCount` | not reported | `candidatesTokenCount`, excludes thoughts | `thoughtsTokenCount` |
//!
//! Cost comes from the provider's own figure when it sends one (OpenRouter's `cost`), otherwise the
//! engine prices the usage from the model registry.

use tunacode_protocol::Usage;

/// How a provider's counts relate to ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counting {
    /// Input includes cached tokens; output includes reasoning (OpenAI Chat and Responses).
    OpenAi,
    /// Input excludes cache reads and writes; output includes thinking (Anthropic).
    Anthropic,
    /// Input includes cached tokens; output excludes thoughts (Gemini).
    Gemini,
}

/// Token counts as a provider reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RawUsage {
    /// Input tokens as reported.
    pub input: u64,
    /// Output tokens as reported.
    pub output: u64,
    /// Cached input tokens read.
    pub cache_read: u64,
    /// Input tokens written to the cache.
    pub cache_write: u64,
    /// Reasoning tokens.
    pub reasoning: u64,
    /// The provider's own cost figure, in US dollars.
    pub cost: Option<f64>,
}

/// Converts a provider's counts into [`Usage`].
pub fn normalize(counting: Counting, raw: RawUsage) -> Usage {
    let (request_tokens, response_tokens) = match counting {
        Counting::OpenAi => (raw.input, raw.output),
        Counting::Anthropic => (raw.input + raw.cache_read + raw.cache_write, raw.output),
        Counting::Gemini => (raw.input, raw.output + raw.reasoning),
    };
    Usage {
        request_tokens,
        response_tokens,
        cached_tokens: raw.cache_read,
        cache_write_tokens: raw.cache_write,
        reasoning_tokens: raw.reasoning,
        cost: raw.cost.unwrap_or(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_provider_maps_to_input_with_cache_and_output_with_reasoning() {
        let raw = RawUsage {
            input: 100,
            output: 40,
            cache_read: 30,
            cache_write: 10,
            reasoning: 25,
            cost: None,
        };
        let openai = normalize(Counting::OpenAi, raw);
        assert_eq!((openai.request_tokens, openai.response_tokens), (100, 40));
        let anthropic = normalize(Counting::Anthropic, raw);
        assert_eq!(
            (anthropic.request_tokens, anthropic.response_tokens),
            (140, 40)
        );
        assert_eq!(
            (anthropic.cached_tokens, anthropic.cache_write_tokens),
            (30, 10)
        );
        let gemini = normalize(Counting::Gemini, raw);
        assert_eq!(
            (
                gemini.request_tokens,
                gemini.response_tokens,
                gemini.reasoning_tokens
            ),
            (100, 65, 25)
        );
        let priced = normalize(
            Counting::OpenAi,
            RawUsage {
                cost: Some(0.5),
                ..raw
            },
        );
        assert_eq!(priced.cost, 0.5);
    }
}
