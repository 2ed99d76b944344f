//! Server-sent events over a byte stream, on `eventsource-stream` (which handles LF, CRLF and CR line
//! ends, multi-line `data:` and `:` comments). A transport error becomes [`LlmError::Network`].

use bytes::Bytes;
use eventsource_stream::{EventStream, Eventsource};
use futures::StreamExt;
use futures::stream::BoxStream;

use crate::error::{LlmError, describe_reqwest_error};

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field (`message` when absent).
    pub event: String,
    /// The `data:` lines joined by `\n`.
    pub data: String,
}

/// Reads events one at a time from an HTTP body.
pub(crate) struct SseReader {
    inner: EventStream<BoxStream<'static, Result<Bytes, reqwest::Error>>>,
}

impl SseReader {
    pub(crate) fn new(body: BoxStream<'static, Result<Bytes, reqwest::Error>>) -> Self {
        SseReader {
            inner: body.eventsource(),
        }
    }

    /// The next event, or `None` when the body ended.
    pub(crate) async fn next_event(&mut self) -> Result<Option<SseEvent>, LlmError> {
        match self.inner.next().await {
            None => Ok(None),
            Some(Ok(ev)) => Ok(Some(SseEvent {
                event: ev.event,
                data: ev.data,
            })),
            Some(Err(eventsource_stream::EventStreamError::Transport(e))) => {
                Err(LlmError::Network {
                    message: format!("the stream was cut: {}", describe_reqwest_error(&e)),
                })
            }
            Some(Err(e)) => Err(LlmError::InvalidResponse {
                message: format!("unreadable event stream: {e}"),
            }),
        }
    }
}
