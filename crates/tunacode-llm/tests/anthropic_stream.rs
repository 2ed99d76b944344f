//! The Anthropic Messages client against the fake provider speaking the real SSE format.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};
use support::{collect, recorded_turn};
use tunacode_llm::anthropic::build_body;
use tunacode_llm::{
    LlmError, ModelClient, ModelEvent, ModelId, ModelRequest, ProviderSettings, RetryPolicy,
    WireApi, create_client,
};
use tunacode_protocol::{Message, Part, ThinkingPart, ToolSpec, Usage};
use tunacode_testkit::{
    AnthropicMessages, Ending, FakeOptions, FakeProvider, Reply, ScriptedUsage, Turn,
};

fn start(script: Vec<Turn>) -> FakeProvider {
    FakeProvider::start_with(Arc::new(AnthropicMessages), script, FakeOptions::default())
}

fn client(fake: &FakeProvider, key: Option<&str>) -> Arc<dyn ModelClient> {
    let id = ModelId::parse("anthropic:claude-test").unwrap();
    let mut s =
        ProviderSettings::for_model(&id, Some(fake.base_url()), key.map(str::to_string)).unwrap();
    assert_eq!(s.wire, WireApi::Anthropic);
    s.retry = RetryPolicy {
        max_retries: 2,
        base_delay: Duration::from_millis(10),
        ..RetryPolicy::default()
    };
    s.idle_timeout = Duration::from_secs(5);
    // Not the default location: the auth hint must name the file actually in use.
    s.config_file = Some("/srv/conf/tunacode-custom.json".into());
    create_client(&s).unwrap()
}

fn request() -> ModelRequest {
    ModelRequest {
        model: "claude-test".into(),
        system: "sys".into(),
        messages: vec![Message::user("hi")].into(),
        ..Default::default()
    }
}

async fn run(fake: &FakeProvider) -> (Vec<ModelEvent>, Result<Message, LlmError>) {
    collect(client(fake, Some("test-key")).as_ref(), request()).await
}

fn usages(events: &[ModelEvent]) -> Vec<Usage> {
    let usage = |e: &ModelEvent| {
        if let ModelEvent::Usage(u) = e {
            Some(*u)
        } else {
            None
        }
    };
    events.iter().filter_map(usage).collect()
}

fn anthropic_body(kind: &str, message: &str) -> String {
    json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
}

/// An SSE body from `(event, data)` pairs, as the real API frames it.
fn sse(events: &[(&str, Value)]) -> String {
    events
        .iter()
        .map(|(e, d)| format!("event: {e}\ndata: {d}\n\n"))
        .collect()
}

fn message_start() -> (&'static str, Value) {
    (
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
            "role": "assistant", "model": "claude-test", "content": [],
            "usage": {"input_tokens": 5, "output_tokens": 1}}}),
    )
}

/// A complete text block at index 0.
fn text_block(text: &str) -> [(&'static str, Value); 3] {
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

#[tokio::test]
async fn streams_text_with_response_details_usage_and_finish() {
    let fake = start(vec![Turn::Reply(Reply {
        text: Some("Hello, world! 🐟".into()),
        usage: Some(ScriptedUsage {
            prompt_tokens: 50,
            completion_tokens: 20,
            cached_tokens: 30,
        }),
        ..Reply::default()
    })]);
    let (events, message) = run(&fake).await;
    let message = message.unwrap();
    let mut expected = Message::response(vec![Part::text("Hello, world! 🐟")]);
    expected.extra.insert(
        "provider_details".into(),
        json!({"provider": "anthropic", "id": "msg_fake_1", "model": "claude-test"}),
    );
    expected.extra.insert("finish_reason".into(), json!("stop"));
    assert_eq!(message, expected);
    let deltas: Vec<&ModelEvent> = events
        .iter()
        .filter(|e| matches!(e, ModelEvent::TextDelta(_)))
        .collect();
    assert_eq!(deltas.len(), 4, "text arrives in pieces: {events:?}");
    assert_eq!(events.last(), Some(&ModelEvent::Finish("stop".into())));
    let usage = Usage {
        request_tokens: 50,
        response_tokens: 20,
        cached_tokens: 30,
        ..Usage::default()
    };
    assert_eq!(usages(&events), [usage], "one usage, input normalised");
}

#[tokio::test]
async fn assembles_text_and_three_tool_calls_with_split_arguments() {
    let fake = start(vec![Turn::Reply(Reply {
        text: Some("Reading.".into()),
        tool_calls: Turn::tool_calls(&[
            ("toolu_a", "read_file", r#"{"file_path": "src/main.rs"}"#),
            (
                "toolu_b",
                "grep",
                r#"{"pattern": "fn main", "path": "src"}"#,
            ),
            ("toolu_c", "list_dir", ""),
        ])
        .calls(),
        ..Reply::default()
    })]);
    let (events, message) = run(&fake).await;
    let message = message.unwrap();
    assert_eq!(
        message.parts,
        vec![
            Part::text("Reading."),
            Part::tool_call("toolu_a", "read_file", json!({"file_path": "src/main.rs"})),
            Part::tool_call(
                "toolu_b",
                "grep",
                json!({"pattern": "fn main", "path": "src"})
            ),
            Part::tool_call("toolu_c", "list_dir", json!({})),
        ]
    );
    assert_eq!(message.extra["finish_reason"], "tool_calls");
    let fragments = events
        .iter()
        .filter(|e| matches!(e, ModelEvent::ToolCallArgs { index: 2, .. }))
        .count();
    assert!(fragments > 3, "arguments arrive split: {events:?}");
}

#[tokio::test]
async fn thinking_keeps_its_signature_and_goes_back_byte_exact() {
    let fake = start(vec![Turn::Reply(Reply {
        reasoning: Some("The user greets me.".into()),
        text: Some("Hi!".into()),
        chunk_chars: 5,
        ..Reply::default()
    })]);
    let (events, message) = run(&fake).await;
    let message = message.unwrap();
    let mut thinking = ThinkingPart {
        content: "The user greets me.".into(),
        signature: Some("sig-1".into()),
        extra: Map::new(),
    };
    thinking
        .extra
        .insert("provider_details".into(), json!({"provider": "anthropic"}));
    assert_eq!(
        message.parts,
        vec![Part::Thinking(thinking), Part::text("Hi!")]
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, ModelEvent::ThinkingDelta(_)))
            .count(),
        4
    );
    let follow_up = ModelRequest {
        messages: vec![Message::user("hi"), message, Message::user("again")].into(),
        ..request()
    };
    assert_eq!(
        build_body(&follow_up)["messages"][1],
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "The user greets me.", "signature": "sig-1"},
            {"type": "text", "text": "Hi!"}
        ]})
    );
}

#[tokio::test]
async fn usage_counts_cache_reads_and_writes_and_takes_revised_totals() {
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_u", "model": "claude-test",
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 100,
                      "cache_creation_input_tokens": 40, "output_tokens": 1}}}),
    )];
    events.extend(text_block("ok"));
    events.push((
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens"},
            "usage": {"input_tokens": 12, "output_tokens": 25}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    let body = sse(&events);
    let fake = start(vec![recorded_turn(&body)]);
    let (events, message) = run(&fake).await;
    assert_eq!(message.unwrap().extra["finish_reason"], "length");
    assert_eq!(
        usages(&events),
        [Usage {
            request_tokens: 152,
            response_tokens: 25,
            cached_tokens: 100,
            cache_write_tokens: 40,
            ..Usage::default()
        }]
    );
}

#[tokio::test]
async fn an_error_event_after_output_ends_the_stream_without_a_retry() {
    let mut events = vec![message_start(), ("ping", json!({"type": "ping"}))];
    events.extend(text_block("partial"));
    events.push((
        "error",
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    ));
    let body = sse(&events);
    let fake = start(vec![recorded_turn(&body), Turn::text("never")]);
    let (events, result) = run(&fake).await;
    assert_eq!(
        result.unwrap_err(),
        LlmError::Overloaded {
            status: 0,
            message: "Overloaded".into()
        }
    );
    assert!(events.contains(&ModelEvent::TextDelta("partial".into())));
    assert_eq!(fake.requests().len(), 1, "no retry after output");
}

#[tokio::test]
async fn an_error_event_before_any_content_is_retried() {
    let body = sse(&[
        message_start(),
        (
            "error",
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ),
    ]);
    let fake = start(vec![recorded_turn(&body), Turn::text("second try")]);
    let (events, message) = run(&fake).await;
    assert_eq!(message.unwrap().text(), "second try");
    assert!(
        matches!(&events[0], ModelEvent::Retrying { attempt: 1, error, .. } if error.contains("Overloaded")),
        "{events:?}"
    );
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn rate_limit_retry_after_is_honoured() {
    let fake = start(vec![
        Turn::http_error(
            429,
            &[("retry-after", "1")],
            &anthropic_body(
                "rate_limit_error",
                "Number of request tokens has exceeded your per-minute rate limit",
            ),
        ),
        Turn::text("ok"),
    ]);
    let (events, message) = run(&fake).await;
    assert_eq!(message.unwrap().text(), "ok");
    assert!(
        matches!(&events[0], ModelEvent::Retrying { attempt: 1, delay_ms: 1000, error, .. }
            if error.contains("per-minute rate limit")),
        "{events:?}"
    );
    let r = fake.requests();
    assert!(r[1].received_at.duration_since(r[0].received_at) >= Duration::from_secs(1));
}

#[tokio::test]
async fn overloaded_529_is_retried() {
    let fake = start(vec![
        Turn::http_error(529, &[], &anthropic_body("overloaded_error", "Overloaded")),
        Turn::text("ok"),
    ]);
    let (events, message) = run(&fake).await;
    assert_eq!(message.unwrap().text(), "ok");
    assert!(
        matches!(&events[0], ModelEvent::Retrying { attempt: 1, error, .. }
            if error == "provider overloaded (HTTP 529): Overloaded"),
        "{events:?}"
    );
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn auth_and_context_errors_are_not_retried_and_keep_the_message() {
    let fake = start(vec![
        Turn::http_error(
            401,
            &[],
            &anthropic_body("authentication_error", "invalid x-api-key"),
        ),
        Turn::http_error(
            400,
            &[],
            &anthropic_body(
                "invalid_request_error",
                "prompt is too long: 212000 tokens > 200000 maximum",
            ),
        ),
    ]);
    let (_, result) = run(&fake).await;
    assert_eq!(
        result.unwrap_err(),
        LlmError::Auth {
            status: 401,
            message: "invalid x-api-key (set ANTHROPIC_API_KEY in the environment or under \"env\" in /srv/conf/tunacode-custom.json)".into()
        }
    );
    let (_, result) = run(&fake).await;
    assert_eq!(
        result.unwrap_err(),
        LlmError::ContextOverflow {
            message: "prompt is too long: 212000 tokens > 200000 maximum".into()
        }
    );
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn a_cut_stream_after_output_is_a_network_error() {
    let fake = start(vec![
        Turn::Reply(Reply {
            text: Some("partial answer here".into()),
            // message_start, ping, block start, two text deltas.
            ending: Ending::Cut { after_events: 5 },
            ..Reply::default()
        }),
        Turn::text("never"),
    ]);
    let (events, result) = run(&fake).await;
    let err = result.unwrap_err();
    assert_eq!(err.kind(), "network", "{err}");
    assert!(
        matches!(events[0], ModelEvent::ResponseDetails(_)),
        "{events:?}"
    );
    let text = [
        ModelEvent::TextDelta("part".into()),
        ModelEvent::TextDelta("ial ".into()),
    ];
    assert_eq!(events[1..], text);
    assert_eq!(fake.requests().len(), 1);
}

#[tokio::test]
async fn a_stream_closed_after_the_stop_reason_is_complete_but_not_before() {
    let mut without_stop = vec![message_start()];
    without_stop.extend(text_block("done"));
    let unfinished = sse(&without_stop);
    without_stop.push((
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
    ));
    let fake = start(vec![
        recorded_turn(&sse(&without_stop)),
        recorded_turn(&unfinished),
    ]);
    let (_, message) = run(&fake).await;
    assert_eq!(message.unwrap().text(), "done");
    let (_, result) = run(&fake).await;
    assert_eq!(
        result.unwrap_err(),
        LlmError::Network {
            message: "the stream ended before the response was complete".into()
        }
    );
}

#[tokio::test]
async fn sends_key_version_and_an_alternating_body() {
    let fake = start(vec![Turn::text("ok")]);
    let mut anthropic_thinking = ThinkingPart {
        content: "plan".into(),
        signature: Some("c2ln+/=".into()),
        extra: Map::new(),
    };
    anthropic_thinking
        .extra
        .insert("provider_details".into(), json!({"provider": "anthropic"}));
    let request = ModelRequest {
        model: "claude-test".into(),
        system: "You are TunaCode.".into(),
        messages: vec![
            Message::user("fix the bug"),
            Message::response(vec![
                Part::Thinking(anthropic_thinking),
                Part::text("Looking."),
                Part::tool_call("toolu_1", "read_file", json!({"file_path": "a.rs"})),
                Part::tool_call("toolu_2", "grep", json!("{\"pattern\":\"bug\"}")),
            ]),
            Message::request(vec![
                Part::tool_return("toolu_1", "read_file", "fn main() {}"),
                Part::retry_prompt("toolu_2", "grep", "bad pattern"),
            ]),
            Message::user("and hurry"),
        ]
        .into(),
        tools: vec![ToolSpec {
            name: "read_file".into(),
            description: "Reads a file.".into(),
            parameters: json!({"type": "object", "properties": {"file_path": {"type": "string"}},
                               "required": ["file_path"]}),
        }]
        .into(),
        max_output_tokens: Some(2048),
        ..Default::default()
    };
    let (_, message) = collect(client(&fake, Some("test-key")).as_ref(), request).await;
    assert_eq!(message.unwrap().text(), "ok");
    let req = &fake.requests()[0];
    assert_eq!(req.path, "/v1/messages");
    assert_eq!(req.header("x-api-key"), Some("test-key"));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.header("authorization"), None);
    assert_eq!(
        req.body,
        json!({
            "model": "claude-test",
            "max_tokens": 2048,
            "system": [{"type": "text", "text": "You are TunaCode.", "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "fix the bug", "cache_control": {"type": "ephemeral"}}]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "plan", "signature": "c2ln+/="},
                    {"type": "text", "text": "Looking."},
                    {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"file_path": "a.rs"}},
                    {"type": "tool_use", "id": "toolu_2", "name": "grep", "input": {"pattern": "bug"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "fn main() {}"},
                    {"type": "tool_result", "tool_use_id": "toolu_2",
                     "content": "bad pattern\n\nFix the errors and try again.", "is_error": true},
                    {"type": "text", "text": "and hurry", "cache_control": {"type": "ephemeral"}}
                ]}
            ],
            "stream": true,
            "tools": [{"name": "read_file", "description": "Reads a file.",
                       "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}},
                                        "required": ["file_path"]}, "cache_control": {"type": "ephemeral"}}]
        })
    );
}

#[tokio::test]
async fn no_key_sends_no_key_header() {
    let fake = start(vec![Turn::text("ok")]);
    let (_, message) = collect(client(&fake, None).as_ref(), request()).await;
    assert_eq!(message.unwrap().text(), "ok");
    assert_eq!(fake.requests()[0].header("x-api-key"), None);
}
