//! The Anthropic Messages client against the fake provider speaking the real SSE format: streaming,
//! tool calls, thinking, usage and the request sent. Errors and retries are in `anthropic_errors.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod anthropic_support;
mod support;

use anthropic_support::{client, request, run, sse, start, text_block, usages};
use pretty_assertions::assert_eq;
use serde_json::json;
use support::{collect, recorded_turn};
use tunacode_llm::anthropic::build_body;
use tunacode_llm::{ModelEvent, ModelRequest};
use tunacode_protocol::{Message, Part, ThinkingPart, ToolSpec, Usage};
use tunacode_testkit::{Reply, ScriptedUsage, Turn};

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
        extra: Default::default(),
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
async fn sends_key_version_and_an_alternating_body() {
    let fake = start(vec![Turn::text("ok")]);
    let mut anthropic_thinking = ThinkingPart {
        content: "plan".into(),
        signature: Some("c2ln+/=".into()),
        extra: Default::default(),
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
