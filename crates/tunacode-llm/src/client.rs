//! The [`ModelClient`] trait: one request in, a stream of model events out.

use std::pin::Pin;

use futures::Stream;
use tokio_util::sync::CancellationToken;
use tunacode_protocol::{Message, ToolSpec, Usage};

use crate::error::LlmError;

/// Everything one model call needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelRequest {
    /// The model's name at the provider (without the `provider:` prefix).
    pub model: String,
    /// The system prompt.
    pub system: String,
    /// The conversation so far; the last message is a request.
    pub messages: Vec<Message>,
    /// The tools offered.
    pub tools: Vec<ToolSpec>,
    /// Upper bound on output tokens, when set.
    pub max_output_tokens: Option<u32>,
    /// Sampling temperature, when set.
    pub temperature: Option<f32>,
}

/// One piece of a streamed model response.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelEvent {
    /// Assistant text.
    TextDelta(String),
    /// Reasoning text.
    ThinkingDelta(String),
    /// A tool call began (`index` orders calls within the response).
    ToolCallStart {
        /// Position of the call in the response.
        index: usize,
        /// Provider's call id (may be empty; the assembler then makes one).
        id: String,
        /// Tool name.
        name: String,
    },
    /// A fragment of a tool call's argument JSON.
    ToolCallArgs {
        /// Which call.
        index: usize,
        /// The fragment.
        fragment: String,
    },
    /// Token usage of this call.
    Usage(Usage),
    /// Why the model stopped (`stop`, `tool_calls`, `length`, …).
    Finish(String),
    /// A retryable error happened before any output; the client waits `delay_ms` and tries again.
    Retrying {
        /// 1-based retry number.
        attempt: u32,
        /// How long it waits.
        delay_ms: u64,
        /// What went wrong.
        error: String,
    },
}

/// The stream a [`ModelClient`] returns.
pub type ModelStream = Pin<Box<dyn Stream<Item = Result<ModelEvent, LlmError>> + Send>>;

/// A provider client speaking one wire API.
pub trait ModelClient: Send + Sync {
    /// Starts a call. The stream ends after [`ModelEvent::Finish`] (or an error); cancelling `cancel`
    /// ends it with [`LlmError::Cancelled`].
    fn stream(&self, request: ModelRequest, cancel: CancellationToken) -> ModelStream;
}
