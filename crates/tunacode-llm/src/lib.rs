//! Provider clients of TunaCode. A [`ModelClient`] takes one [`ModelRequest`] and returns a stream of
//! [`ModelEvent`]s; the [`ResponseAssembler`] turns that stream into a canonical response message.
//! Errors carry their retry policy ([`LlmError::is_retryable`]); retries happen only before any output
//! has reached the caller.

pub mod anthropic;
mod assemble;
mod client;
mod continued_body;
mod error;
mod factory;
pub mod gemini;
mod http;
mod message_cache;

pub mod models;
mod offline;
pub mod openai_chat;
pub mod openai_responses;
mod provider;
mod retry;
mod server_models;
mod sse;
mod turn_body;
pub mod usage_norm;
mod wire_history;

pub use assemble::ResponseAssembler;
pub use client::{ModelClient, ModelEvent, ModelRequest, ModelStream, PartTarget};
pub use error::LlmError;
pub use factory::{create_client, request_body};
pub use message_cache::MessageCache;
pub use offline::decode_response;
pub use provider::{
    KnownProvider, ModelId, ProviderSettings, WireApi, known_provider, known_provider_names,
};
pub use retry::{RetryPolicy, parse_retry_after};
pub use server_models::server_models;
