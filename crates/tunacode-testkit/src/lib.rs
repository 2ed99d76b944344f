//! Test kit for TunaCode: [`FakeProvider`], a scripted LLM provider HTTP server on 127.0.0.1 (random port)
//! that speaks a real wire format (OpenAI Chat Completions SSE today; others plug in through
//! [`WireFormat`]) and records every request it receives.

mod anthropic;
mod error;
mod fake_options;
mod gemini;
mod lsp;
mod mcp;
mod openai_chat;
mod openai_responses;
mod outline;
mod recorded;
mod routes;
pub mod rules;
mod script;
mod server;
mod test_env;
mod tmux;
mod wire;

pub use anthropic::AnthropicMessages;
pub use error::TestkitError;
pub use gemini::Gemini;
pub use lsp::pyright_langserver;
pub use mcp::{fake_mcp_binary, npm_mcp_bin_dir};
pub use openai_chat::OpenAiChat;
pub use openai_responses::OpenAiResponses;
pub use recorded::{JsonBody, RecordedRequest};
pub use routes::{Gather, Route};
pub use script::{Ending, Reply, ScriptedToolCall, ScriptedUsage, Turn};
pub use server::{FakeOptions, FakeProvider};
pub use test_env::{LineReader, TestEnv, wait_with_timeout};
pub use tmux::Tmux;
pub use wire::{RenderContext, SseReply, WireFormat, split_chars};

/// `value` with every object key `key` removed, at any depth (e.g. to compare request bodies without
/// their prompt-cache breakpoints).
pub fn without_key(value: &serde_json::Value, key: &str) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value, key: &str) {
        match v {
            serde_json::Value::Object(map) => {
                map.remove(key);
                map.values_mut().for_each(|v| strip(v, key));
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| strip(v, key)),
            _ => {}
        }
    }
    let mut value = value.clone();
    strip(&mut value, key);
    value
}
