//! Counting tokens for the context budget: OpenAI's own tokenizer (o200k, through `tiktoken-rs`) for
//! OpenAI models, 4 characters a token elsewhere. The tokenizer's tables take a moment to load, so they
//! load on a background thread the first time they are wanted; until they are ready the estimate is
//! used, so neither start-up nor a request ever waits for them.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use tiktoken_rs::CoreBPE;

use crate::history::estimate_tokens;

/// How a model's tokens are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TokenCounter {
    /// 4 characters a token.
    #[default]
    Estimate,
    /// OpenAI's o200k tokenizer (GPT-4o, GPT-4.1, GPT-5, o-series).
    OpenAi,
}

static BPE: OnceLock<Option<CoreBPE>> = OnceLock::new();
static LOADING: AtomicBool = AtomicBool::new(false);

impl TokenCounter {
    /// The counter for a model: OpenAI's tokenizer for OpenAI's models, else the estimate.
    pub fn for_model(provider: &str, model: &str) -> Self {
        if provider == "openai" || (provider == "openrouter" && model.starts_with("openai/")) {
            TokenCounter::OpenAi
        } else {
            TokenCounter::Estimate
        }
    }

    /// Tokens of `text`.
    pub fn count(&self, text: &str) -> u64 {
        match (self, self.tokenizer()) {
            (TokenCounter::OpenAi, Some(bpe)) => bpe.encode_ordinary(text).len() as u64,
            _ => estimate_tokens(text),
        }
    }

    /// The tokenizer when it is loaded; starts loading it (once, in the background) otherwise.
    fn tokenizer(&self) -> Option<&'static CoreBPE> {
        if *self != TokenCounter::OpenAi {
            return None;
        }
        if let Some(loaded) = BPE.get() {
            return loaded.as_ref();
        }
        if !LOADING.swap(true, Ordering::SeqCst) {
            std::thread::spawn(|| {
                BPE.get_or_init(|| tiktoken_rs::o200k_base().ok());
            });
        }
        None
    }

    /// Tokens of `text`, waiting for the tokenizer to load when it is not yet (blocks: for work off
    /// the async threads that must say exactly how it counted, like `/context`).
    pub fn count_loaded(&self, text: &str) -> u64 {
        if *self == TokenCounter::OpenAi {
            BPE.get_or_init(|| tiktoken_rs::o200k_base().ok());
        }
        self.count(text)
    }

    /// Starts loading the tokenizer now, so it is ready by the time it is wanted.
    pub fn warm_up(&self) {
        let _ = self.tokenizer();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_models_use_the_real_tokenizer_once_loaded() {
        assert_eq!(
            TokenCounter::for_model("openai", "gpt-5"),
            TokenCounter::OpenAi
        );
        assert_eq!(
            TokenCounter::for_model("openrouter", "openai/gpt-4.1"),
            TokenCounter::OpenAi
        );
        assert_eq!(
            TokenCounter::for_model("anthropic", "claude-sonnet-4-5"),
            TokenCounter::Estimate
        );
        let counter = TokenCounter::OpenAi;
        counter.warm_up();
        // Wait for the background load: on the value itself, with a generous bound.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let bpe = loop {
            if let Some(loaded) = BPE.get() {
                break loaded.as_ref().expect("the o200k tables load");
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the tokenizer never loaded"
            );
            std::thread::yield_now();
        };
        let text = "Hello, world! fn main() { println!(\"hi\"); }";
        assert_eq!(counter.count(text), bpe.encode_ordinary(text).len() as u64);
        assert_ne!(counter.count(text), estimate_tokens(text));
        assert_eq!(TokenCounter::Estimate.count("abcdefgh"), 2);
    }
}
