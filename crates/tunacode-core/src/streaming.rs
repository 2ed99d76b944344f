//! Consuming one model stream (seed 002 "Streaming"): text deltas go out through the completion-marker
//! filter, reasoning deltas and retry notices go out as events, and the events are assembled into the
//! response message. What the user saw is tracked so an interruption can keep it.

use futures::StreamExt;
use tokio_util::sync::CancellationToken;
use tunacode_llm::{LlmError, ModelClient, ModelEvent, ModelRequest, ResponseAssembler};
use tunacode_protocol::{AgentEvent, Message, NoticeLevel, Part, Usage};

use crate::completion::{MarkerFilter, strip_completion_marker};
use crate::events::EventSink;

/// A complete model response.
pub(crate) struct Streamed {
    /// The response, completion marker removed from its text.
    pub message: Message,
    /// The usage the provider reported.
    pub usage: Option<Usage>,
    /// Whether the completion marker was present.
    pub completed: bool,
}

/// Why a stream did not complete.
pub(crate) enum StreamStop {
    /// The request was cancelled (abort or timeout).
    Cancelled,
    /// The model call failed.
    Failed(LlmError),
}

/// The stream step of a request: consumes one model call at a time and keeps what the user saw of
/// the response being streamed, so an interruption can keep it.
#[derive(Debug, Default)]
pub(crate) struct Stream {
    /// The text shown of the response in progress (cleared when a response completes).
    shown: String,
    /// Whether the provider sent anything of the response in progress.
    started: bool,
}

impl Stream {
    /// Streams one model call.
    pub(crate) async fn receive(
        &mut self,
        client: &dyn ModelClient,
        request: ModelRequest,
        cancel: &CancellationToken,
        events: &EventSink,
    ) -> Result<Streamed, StreamStop> {
        self.shown.clear();
        self.started = false;
        let streamed = stream_response(client, request, cancel, events, self).await;
        if streamed.is_ok() {
            self.shown.clear();
        }
        streamed
    }

    /// Whether nothing of the failed response reached the user (so it can be sent again).
    pub(crate) fn shown_nothing(&self) -> bool {
        self.shown.is_empty()
    }

    /// The text the user saw of a response that did not complete.
    pub(crate) fn take_partial(&mut self) -> String {
        std::mem::take(&mut self.shown)
    }

    /// Whether the failed response broke off after the provider had started it (the client does
    /// not retry those: what it sent was already passed on).
    pub(crate) fn broke_off(&self) -> bool {
        self.started
    }
}

/// Streams one model call. `progress` receives the text the user has seen so far, and whether
/// anything arrived.
async fn stream_response(
    client: &dyn ModelClient,
    request: ModelRequest,
    cancel: &CancellationToken,
    events: &EventSink,
    progress: &mut Stream,
) -> Result<Streamed, StreamStop> {
    let shown = &mut progress.shown;
    let mut stream = client.stream(request, cancel.clone());
    let mut assembler = ResponseAssembler::new();
    let mut filter = MarkerFilter::new();
    loop {
        let item = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(StreamStop::Cancelled),
            item = stream.next() => item,
        };
        let event = match item {
            None => break,
            Some(Err(LlmError::Cancelled)) => return Err(StreamStop::Cancelled),
            Some(Err(e)) => return Err(StreamStop::Failed(e)),
            Some(Ok(event)) => event,
        };
        if !matches!(event, ModelEvent::Retrying { .. }) {
            progress.started = true;
        }
        show(&event, &mut filter, events, shown);
        assembler.push(&event);
    }
    let rest = filter.finish();
    if !rest.is_empty() {
        shown.push_str(&rest);
        events.emit(AgentEvent::TextDelta { text: rest });
    }
    let usage = assembler.usage();
    let mut message = assembler.finish();
    let completed = strip_markers(&mut message);
    Ok(Streamed {
        message,
        usage,
        completed,
    })
}

/// Shows one streamed event: visible text (the completion marker held back), reasoning, retries.
fn show(event: &ModelEvent, filter: &mut MarkerFilter, events: &EventSink, shown: &mut String) {
    match event {
        ModelEvent::TextDelta(text) => {
            let visible = filter.push(text);
            if !visible.is_empty() {
                shown.push_str(&visible);
                events.emit(AgentEvent::TextDelta { text: visible });
            }
        }
        ModelEvent::ThinkingDelta(text) => {
            events.emit(AgentEvent::ThinkingDelta { text: text.clone() })
        }
        ModelEvent::Retrying {
            attempt,
            of,
            delay_ms,
            error,
        } => events.emit(AgentEvent::Notice {
            level: NoticeLevel::Warning,
            message: format!(
                "{error}{}{:.1}s (retry {attempt} of {of})",
                tunacode_protocol::RETRY_NOTICE_MARK,
                *delay_ms as f64 / 1000.0
            ),
        }),
        _ => {}
    }
}

/// Removes the completion marker from the message's text parts; whether one was there.
fn strip_markers(message: &mut Message) -> bool {
    let mut completed = false;
    for part in &mut message.parts {
        if let Part::Text(text) = part {
            let (found, stripped) = strip_completion_marker(&text.content);
            completed |= found;
            text.content = stripped;
        }
    }
    completed
}
