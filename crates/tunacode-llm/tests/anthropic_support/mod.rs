//! What the Anthropic client tests share: the fake provider speaking Anthropic's SSE, a client with
//! short retries against it, a minimal request, and builders of SSE bodies and error bodies.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tunacode_llm::{LlmError, ModelClient, ModelEvent, ModelRequest, WireApi, create_client};
use tunacode_protocol::{Message, Usage};
use tunacode_testkit::{AnthropicMessages, FakeOptions, FakeProvider, Turn};

use crate::support::collect;

pub fn start(script: Vec<Turn>) -> FakeProvider {
    FakeProvider::start_with(Arc::new(AnthropicMessages), script, FakeOptions::default())
}

pub fn client(fake: &FakeProvider, key: Option<&str>) -> Arc<dyn ModelClient> {
    let mut s = crate::support::fast_settings("anthropic:claude-test", fake.base_url(), key, None);
    assert_eq!(s.wire, WireApi::Anthropic);
    // Not the default location: the auth hint must name the file actually in use.
    s.config_file = Some("/srv/conf/tunacode-custom.json".into());
    create_client(&s).unwrap()
}

pub fn request() -> ModelRequest {
    ModelRequest {
        model: "claude-test".into(),
        system: "sys".into(),
        messages: vec![Message::user("hi")].into(),
        ..Default::default()
    }
}

pub async fn run(fake: &FakeProvider) -> (Vec<ModelEvent>, Result<Message, LlmError>) {
    collect(client(fake, Some("test-key")).as_ref(), request()).await
}

pub fn usages(events: &[ModelEvent]) -> Vec<Usage> {
    let usage = |e: &ModelEvent| {
        if let ModelEvent::Usage(u) = e {
            Some(*u)
        } else {
            None
        }
    };
    events.iter().filter_map(usage).collect()
}

pub fn anthropic_body(kind: &str, message: &str) -> String {
    json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
}

/// An SSE body from `(event, data)` pairs, as the real API frames it.
pub fn sse(events: &[(&str, Value)]) -> String {
    events
        .iter()
        .map(|(e, d)| format!("event: {e}\ndata: {d}\n\n"))
        .collect()
}

pub fn message_start() -> (&'static str, Value) {
    (
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
            "role": "assistant", "model": "claude-test", "content": [],
            "usage": {"input_tokens": 5, "output_tokens": 1}}}),
    )
}

/// A complete text block at index 0.
pub fn text_block(text: &str) -> [(&'static str, Value); 3] {
    [
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
    ]
}
