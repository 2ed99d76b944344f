//! The script a [`crate::FakeProvider`] follows: the n-th request it receives gets the n-th [`Turn`].
//! Scripts are plain serde types so the `tunacode-fake-provider` binary can load them from JSON.

use serde::{Deserialize, Serialize};

/// The scripted answer to one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Turn {
    /// A streamed model reply (HTTP 200, `text/event-stream`).
    Reply(Reply),
    /// An HTTP error response.
    HttpError {
        /// Status code, e.g. 429.
        status: u16,
        /// Extra response headers, e.g. `("retry-after", "1")`.
        #[serde(default)]
        headers: Vec<(String, String)>,
        /// Response body (the provider's JSON error, usually).
        #[serde(default)]
        body: String,
    },
}

/// A streamed reply. Reasoning streams first, then text, then tool calls, then usage, then the finish.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Reply {
    /// Reasoning text, streamed in `chunk_chars` pieces.
    pub reasoning: Option<String>,
    /// Assistant text, streamed in `chunk_chars` pieces.
    pub text: Option<String>,
    /// Tool calls; each call's argument JSON is split across several chunks.
    pub tool_calls: Vec<ScriptedToolCall>,
    /// A usage chunk near the end of the stream.
    pub usage: Option<ScriptedUsage>,
    /// Finish reason; default `tool_calls` when there are calls, else `stop`.
    pub finish_reason: Option<String>,
    /// Characters per text/reasoning delta (0 means 4).
    pub chunk_chars: usize,
    /// Milliseconds to wait between SSE events (0: write as fast as possible).
    pub delay_ms: u64,
    /// How the stream ends.
    pub ending: Ending,
}

/// A tool call in a scripted reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScriptedToolCall {
    /// The call id (e.g. `call_1`).
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The arguments as a JSON text (sent split in pieces).
    pub arguments: String,
}

/// Token counts for the usage chunk.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ScriptedUsage {
    /// Input tokens.
    pub prompt_tokens: u64,
    /// Output tokens.
    pub completion_tokens: u64,
    /// Cached input tokens.
    pub cached_tokens: u64,
}

/// How a reply's stream ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Ending {
    /// Normally, with the wire format's end marker (`data: [DONE]`).
    #[default]
    Complete,
    /// The connection is dropped after `after_events` SSE events (no end marker, body incomplete).
    Cut {
        /// Events sent before the cut.
        after_events: usize,
    },
    /// The stream stops sending after `after_events` events and hangs until the client goes away.
    Stall {
        /// Events sent before the stall.
        after_events: usize,
    },
}

impl Turn {
    /// A reply that streams `text` and stops.
    pub fn text(text: &str) -> Turn {
        Turn::Reply(Reply {
            text: Some(text.to_string()),
            ..Reply::default()
        })
    }

    /// A reply with the given tool calls `(id, name, arguments JSON)`.
    pub fn tool_calls(calls: &[(&str, &str, &str)]) -> Turn {
        Turn::Reply(Reply {
            tool_calls: calls
                .iter()
                .map(|(id, name, args)| ScriptedToolCall {
                    id: id.to_string(),
                    name: name.to_string(),
                    arguments: args.to_string(),
                })
                .collect(),
            ..Reply::default()
        })
    }

    /// The tool calls of a reply (empty for an error turn); handy to build richer replies.
    pub fn calls(&self) -> Vec<ScriptedToolCall> {
        match self {
            Turn::Reply(reply) => reply.tool_calls.clone(),
            Turn::HttpError { .. } => Vec::new(),
        }
    }

    /// A reply with no text and no tool call.
    pub fn empty() -> Turn {
        Turn::Reply(Reply::default())
    }

    /// An HTTP error with a body and headers.
    pub fn http_error(status: u16, headers: &[(&str, &str)], body: &str) -> Turn {
        Turn::HttpError {
            status,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: body.to_string(),
        }
    }
}
