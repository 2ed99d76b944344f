//! Shared helpers for the client tests: the recorded provider responses in `tests/fixtures/recorded/`
//! (copied from `shared/fixtures/recorded/`, see its README for sources and licences), and a way to
//! replay a recorded SSE body through a real client over loopback HTTP.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use futures::StreamExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tunacode_llm::{
    LlmError, ModelClient, ModelEvent, ModelId, ModelRequest, ProviderSettings, ResponseAssembler,
    RetryPolicy, WireApi,
};
use tunacode_protocol::Message;
use tunacode_testkit::Turn;

/// One recorded request/response pair of a VCR cassette.
#[derive(Debug, Clone)]
pub struct Interaction {
    /// The request URI.
    pub uri: String,
    /// The request body as JSON (`parsed_body`, or `body.content`), when recorded.
    pub request_body: Option<Value>,
    /// The HTTP status.
    pub status: u16,
    /// The raw response body (the SSE text).
    pub response_body: String,
}

/// The directory of recorded fixtures.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recorded")
}

/// Reads a raw SSE body fixture (`*.txt`).
pub fn load_raw(name: &str) -> String {
    std::fs::read_to_string(fixtures_dir().join(name)).expect("fixture")
}

/// Reads a VCR cassette (`*.yaml`) in either pydantic-ai format.
pub fn load_cassette(name: &str) -> Vec<Interaction> {
    let text = std::fs::read_to_string(fixtures_dir().join(name)).expect("fixture");
    let doc: Value = serde_norway::from_str(&text).expect("yaml");
    doc["interactions"]
        .as_array()
        .expect("interactions")
        .iter()
        .map(|it| {
            let req = &it["request"];
            let request_body = if !req["parsed_body"].is_null() {
                Some(req["parsed_body"].clone())
            } else {
                match &req["body"]["content"] {
                    Value::String(s) => serde_json::from_str(s).ok(),
                    Value::Null => None,
                    other => Some(other.clone()),
                }
            };
            let resp = &it["response"];
            let status = resp["status"]["code"]
                .as_u64()
                .or_else(|| resp["status"].as_u64())
                .unwrap_or(0) as u16;
            let body = &resp["body"];
            let response_body = body["string"]
                .as_str()
                .or_else(|| body["content"].as_str())
                .unwrap_or("")
                .to_string();
            Interaction {
                uri: req["uri"].as_str().unwrap_or("").to_string(),
                request_body,
                status,
                response_body,
            }
        })
        .collect()
}

/// A fake-provider turn that sends a recorded SSE body as it is.
pub fn recorded_turn(body: &str) -> Turn {
    Turn::http_error(200, &[("content-type", "text/event-stream")], body)
}

/// Runs one request through `client` and returns the events and the assembled message (or error).
pub async fn collect(
    client: &dyn ModelClient,
    request: ModelRequest,
) -> (Vec<ModelEvent>, Result<Message, LlmError>) {
    let mut stream = client.stream(request, CancellationToken::new());
    let mut events = Vec::new();
    let mut assembler = ResponseAssembler::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(ev) => {
                assembler.push(&ev);
                events.push(ev);
            }
            Err(e) => return (events, Err(e)),
        }
    }
    (events, Ok(assembler.finish()))
}

/// The settings of `model` against the fake at `base_url` (with `key`, on `wire` when given) that
/// the client tests use: two retries 10 ms apart, and a silent stream given up after 5 s.
pub fn fast_settings(
    model: &str,
    base_url: String,
    key: Option<&str>,
    wire: Option<WireApi>,
) -> ProviderSettings {
    let id = ModelId::parse(model).unwrap();
    let mut s =
        ProviderSettings::for_model_with_wire(&id, Some(base_url), key.map(str::to_string), wire)
            .unwrap();
    s.retry = RetryPolicy {
        max_retries: 2,
        base_delay: std::time::Duration::from_millis(10),
        ..RetryPolicy::default()
    };
    s.idle_timeout = std::time::Duration::from_secs(5);
    s
}
