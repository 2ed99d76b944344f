//! The [`ModelClient`] trait: one request in, a stream of model events out.

use std::borrow::Cow;
use std::pin::Pin;
use std::sync::Arc;

use futures::Stream;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use tunacode_protocol::{Message, Part, ToolSpec, Usage};

use crate::error::LlmError;

/// Everything one model call needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelRequest {
    /// The model's name at the provider (without the `provider:` prefix).
    pub model: String,
    /// The system prompt.
    pub system: String,
    /// The conversation so far; the last message is a request. Shared with the engine, so a turn
    /// does not copy the whole history.
    pub messages: Arc<Vec<Message>>,
    /// A note added to the last request of this call only, as a user prompt after everything else
    /// (the session's state: plan mode and the todo list; the self-evaluation question); never
    /// stored, so the system prompt and the earlier turns stay byte-identical between calls.
    pub nudge: Option<String>,
    /// The tools offered (one list shared by every call of a request).
    pub tools: std::sync::Arc<[ToolSpec]>,
    /// Upper bound on output tokens, when set.
    pub max_output_tokens: Option<u32>,
    /// Sampling temperature, when set.
    pub temperature: Option<f32>,
    /// Reasoning effort (`low`, `medium`, `high`) for models that reason; `None` leaves the provider's
    /// default (for Anthropic: thinking off).
    pub reasoning: Option<String>,
    /// OpenAI's `prompt_cache_key`: the session, so its calls are routed to the same cache (sent by
    /// the OpenAI clients when set; the engine sets it for OpenAI's own API only).
    pub cache_key: Option<String>,
    /// The last call's body, kept by the engine between the calls of one request so the next call
    /// writes only what is new (`None`: every body is written whole).
    pub cache: Option<Arc<crate::message_cache::MessageCache>>,
}

impl ModelRequest {
    /// The history as sent: the messages, with the nudge (if any) joined to the last request. Only
    /// that message is copied.
    pub fn history(&self) -> impl Iterator<Item = Cow<'_, Message>> {
        let last = self.messages.len().checked_sub(1);
        self.messages.iter().enumerate().map(move |(i, m)| {
            match (&self.nudge, Some(i) == last && m.is_request()) {
                (Some(nudge), true) => {
                    let mut with = m.clone();
                    with.parts.push(Part::user_prompt(nudge.clone()));
                    Cow::Owned(with)
                }
                _ => Cow::Borrowed(m),
            }
        })
    }
}

/// One piece of a streamed model response.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelEvent {
    /// Assistant text.
    TextDelta(String),
    /// Reasoning text (appended to the current reasoning part, or starting one).
    ThinkingDelta(String),
    /// A new reasoning part begins, even if the previous part is reasoning too (providers that send
    /// several separate reasoning blocks or items).
    ThinkingStart,
    /// Signature or encrypted content of the current reasoning part, appended to
    /// `ThinkingPart::signature` and sent back byte-exact.
    ThinkingSignature(String),
    /// Opaque provider data for one part of the response, merged into that part's
    /// `extra["provider_details"]` object and sent back unchanged in later requests.
    PartDetails {
        /// Which part.
        target: PartTarget,
        /// Keys to set (a key set twice keeps the last value).
        details: Map<String, Value>,
    },
    /// Opaque provider data about the whole response (ids, model version), merged into the message's
    /// `extra["provider_details"]`.
    ResponseDetails(Map<String, Value>),
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
        /// How many retries the policy allows.
        of: u32,
        /// How long it waits.
        delay_ms: u64,
        /// What went wrong.
        error: String,
    },
}

/// The part of a response that [`ModelEvent::PartDetails`] describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartTarget {
    /// The last reasoning part (created when there is none).
    Thinking,
    /// The last text part (created when there is none).
    Text,
    /// The tool call with this index.
    ToolCall(usize),
}

/// The stream a [`ModelClient`] returns.
pub type ModelStream = Pin<Box<dyn Stream<Item = Result<ModelEvent, LlmError>> + Send>>;

/// A provider client speaking one wire API.
pub trait ModelClient: Send + Sync {
    /// Starts a call. The stream ends after [`ModelEvent::Finish`] (or an error); cancelling `cancel`
    /// ends it with [`LlmError::Cancelled`].
    fn stream(&self, request: ModelRequest, cancel: CancellationToken) -> ModelStream;
}
