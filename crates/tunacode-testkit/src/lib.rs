//! Test kit for TunaCode: [`FakeProvider`], a scripted LLM provider HTTP server on 127.0.0.1 (random port)
//! that speaks a real wire format (OpenAI Chat Completions SSE today; others plug in through
//! [`WireFormat`]) and records every request it receives.

mod anthropic;
mod error;
mod gemini;
mod openai_chat;
mod openai_responses;
mod recorded;
mod script;
mod server;
mod test_env;
mod tmux;
mod wire;

pub use anthropic::AnthropicMessages;
pub use error::TestkitError;
pub use gemini::Gemini;
pub use openai_chat::OpenAiChat;
pub use openai_responses::OpenAiResponses;
pub use recorded::RecordedRequest;
pub use script::{Ending, Reply, ScriptedToolCall, ScriptedUsage, Turn};
pub use server::{FakeOptions, FakeProvider};
pub use test_env::{LineReader, TestEnv, wait_with_timeout};
pub use tmux::Tmux;
pub use wire::{RenderContext, SseReply, WireFormat, split_chars};
