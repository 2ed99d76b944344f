//! The Gemini client against the fake provider speaking Gemini's SSE format (CRLF-separated
//! `GenerateContentResponse` chunks, no end marker).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::{collect, recorded_turn};
use tunacode_llm::{LlmError, ModelClient, ModelEvent, ModelRequest, WireApi, create_client};
use tunacode_protocol::{Message, Part, ToolSpec, Usage};
use tunacode_testkit::{Ending, FakeOptions, FakeProvider, Gemini, Reply, ScriptedUsage, Turn};

fn start(script: Vec<Turn>) -> FakeProvider {
    FakeProvider::start_with(Arc::new(Gemini), script, FakeOptions::default())
}

fn client(fake: &FakeProvider) -> Arc<dyn ModelClient> {
    let mut s =
        support::fast_settings("google:test-model", fake.base_url(), Some("test-key"), None);
    assert_eq!(s.wire, WireApi::Gemini);
    // Not the default location: the auth hint must name the file actually in use.
    s.config_file = Some("/srv/conf/tunacode-custom.json".into());
    create_client(&s).unwrap()
}

fn request(messages: Vec<Message>) -> ModelRequest {
    ModelRequest {
        model: "test-model".into(),
        system: "sys".into(),
        messages: messages.into(),
        ..ModelRequest::default()
    }
}

async fn run(fake: &FakeProvider) -> (Vec<ModelEvent>, Result<Message, LlmError>) {
    collect(&*client(fake), request(vec![Message::user("hi")])).await
}

fn with_details(mut part: Part, details: Value) -> Part {
    let extra = match &mut part {
        Part::Text(t) => &mut t.extra,
        Part::Thinking(t) => &mut t.extra,
        Part::ToolCall(c) => &mut c.extra,
        _ => unreachable!(),
    };
    extra.insert("provider_details".into(), details);
    part
}

fn signed(part: Part, signature: &str) -> Part {
    with_details(
        part,
        json!({"thought_signature": signature, "provider": "google"}),
    )
}

fn usages(events: &[ModelEvent]) -> Vec<Usage> {
    events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::Usage(u) => Some(*u),
            _ => None,
        })
        .collect()
}

/// One raw SSE event as Gemini frames it.
fn sse(chunk: Value) -> String {
    format!("data: {chunk}\r\n\r\n")
}

/// A chunk with `parts`, a finish reason unless `finish` is empty, and usage unless it is null.
fn chunk(parts: Value, finish: &str, usage: Value) -> String {
    let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
    if !finish.is_empty() {
        candidate["finishReason"] = json!(finish);
    }
    let mut c =
        json!({"candidates": [candidate], "modelVersion": "test-model", "responseId": "raw-1"});
    if !usage.is_null() {
        c["usageMetadata"] = usage;
    }
    sse(c)
}

#[tokio::test]
async fn text_streams_in_pieces_with_response_details() {
    let fake = start(vec![Turn::Reply(Reply {
        text: Some("Hello, wörld!".into()),
        chunk_chars: 5,
        ..Reply::default()
    })]);
    let (events, message) = run(&fake).await;
    let deltas = events
        .iter()
        .filter(|e| matches!(e, ModelEvent::TextDelta(_)));
    assert_eq!(deltas.count(), 3, "{events:?}");
    let mut expected = Message::response(vec![Part::text("Hello, wörld!")]);
    expected.extra = serde_json::from_value(json!({
        "provider_details": {"response_id": "fake-response-1", "model_version": "test-model", "provider": "google"},
        "finish_reason": "stop"
    }))
    .unwrap();
    assert_eq!(message.unwrap(), expected);
}

#[tokio::test]
async fn multiple_tool_calls_with_and_without_ids_keep_their_signatures() {
    let fake = start(vec![Turn::tool_calls(&[
        ("call_a", "read_file", r#"{"file_path": "a.txt"}"#),
        ("", "list_dir", "{}"),
        ("call_c", "grep", r#"{"pattern": "x", "n": 2}"#),
    ])]);
    let (_, message) = run(&fake).await;
    let message = message.unwrap();
    assert_eq!(message.extra["finish_reason"], "tool_calls");
    let invented = message.parts[1].tool_call_id().unwrap().to_string();
    assert!(invented.starts_with("call_1_"), "{invented}");
    assert_eq!(
        message.parts,
        vec![
            signed(
                Part::tool_call("call_a", "read_file", json!({"file_path": "a.txt"})),
                &Gemini::thought_signature(1, 0)
            ),
            signed(
                Part::tool_call(invented, "list_dir", json!({})),
                &Gemini::thought_signature(1, 1)
            ),
            signed(
                Part::tool_call("call_c", "grep", json!({"pattern": "x", "n": 2})),
                &Gemini::thought_signature(1, 2)
            ),
        ]
    );
}

#[tokio::test]
async fn thought_parts_become_reasoning() {
    let fake = start(vec![Turn::Reply(Reply {
        reasoning: Some("Let me think.".into()),
        text: Some("Done.".into()),
        ..Reply::default()
    })]);
    let (events, message) = run(&fake).await;
    let pieces = events
        .iter()
        .filter(|e| matches!(e, ModelEvent::ThinkingDelta(_)));
    assert_eq!(pieces.count(), 4, "{events:?}");
    assert_eq!(
        message.unwrap().parts,
        vec![
            with_details(
                Part::thinking("Let me think.", None),
                json!({"provider": "google"})
            ),
            Part::text("Done."),
        ]
    );
}

#[tokio::test]
async fn usage_last_cumulative_value_wins_and_thoughts_count() {
    let body = [
        chunk(
            json!([{"text": "hm", "thought": true}]),
            "",
            json!({"promptTokenCount": 50, "totalTokenCount": 80, "thoughtsTokenCount": 30}),
        ),
        chunk(
            json!([{"text": "Hi"}]),
            "",
            json!({"promptTokenCount": 50, "candidatesTokenCount": 5, "thoughtsTokenCount": 30}),
        ),
        chunk(
            json!([{"text": ""}]),
            "STOP",
            json!({"promptTokenCount": 70, "candidatesTokenCount": 9, "thoughtsTokenCount": 30,
                        "cachedContentTokenCount": 20}),
        ),
    ]
    .concat();
    let fake = start(vec![
        recorded_turn(&body),
        Turn::Reply(Reply {
            text: Some("scripted".into()),
            usage: Some(ScriptedUsage {
                prompt_tokens: 100,
                completion_tokens: 12,
                cached_tokens: 40,
            }),
            ..Reply::default()
        }),
    ]);
    let (events, message) = run(&fake).await;
    assert_eq!(message.unwrap().text(), "Hi");
    assert_eq!(
        usages(&events),
        vec![Usage {
            request_tokens: 70,
            response_tokens: 39,
            cached_tokens: 20,
            reasoning_tokens: 30,
            ..Usage::default()
        }],
        "one usage event, the last cumulative value"
    );
    let (events, _) = run(&fake).await;
    assert_eq!(
        usages(&events),
        vec![Usage {
            request_tokens: 100,
            response_tokens: 12,
            cached_tokens: 40,
            ..Usage::default()
        }]
    );
}

#[tokio::test]
async fn error_chunks_in_a_200_stream_are_retried_before_output_only() {
    let exhausted = sse(
        json!({"error": {"code": 429, "message": "Resource exhausted.", "status": "RESOURCE_EXHAUSTED"}}),
    );
    let overloaded = [
        chunk(json!([{"text": "Partial"}]), "", Value::Null),
        sse(
            json!({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}),
        ),
    ]
    .concat();
    let fake = start(vec![
        recorded_turn(&exhausted),
        recorded_turn(&overloaded),
        Turn::text("never"),
    ]);
    let (events, result) = run(&fake).await;
    assert!(
        matches!(&events[0], ModelEvent::Retrying { attempt: 1, error, .. } if error.contains("Resource exhausted.")),
        "{events:?}"
    );
    assert_eq!(events[2], ModelEvent::TextDelta("Partial".into()));
    assert_eq!(
        result.unwrap_err(),
        LlmError::Overloaded {
            status: 503,
            message: "The model is overloaded.".into()
        }
    );
    assert_eq!(
        fake.requests().len(),
        2,
        "no retry once output was passed on"
    );
}

#[tokio::test]
async fn http_errors_keep_the_message_and_map_to_kinds() {
    let overflow = r#"{"error": {"code": 400, "message": "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", "status": "INVALID_ARGUMENT"}}"#;
    let bad_key = r#"{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}]}}"#;
    let fake = start(vec![
        Turn::http_error(400, &[], overflow),
        Turn::http_error(400, &[], bad_key),
    ]);
    let (_, result) = run(&fake).await;
    assert_eq!(
        result.unwrap_err(),
        LlmError::ContextOverflow {
            message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).".into()
        }
    );
    let (_, result) = run(&fake).await;
    assert_eq!(
        result.unwrap_err(),
        LlmError::Auth {
            status: 400,
            message: "API key not valid. Please pass a valid API key. (set GEMINI_API_KEY in the \
                      environment or under \"env\" in /srv/conf/tunacode-custom.json)"
                .into()
        }
    );
    assert_eq!(fake.requests().len(), 2, "neither is retried");
}

#[tokio::test]
async fn rate_limit_retry_after_is_honoured() {
    let body = r#"{"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED"}}"#;
    let fake = start(vec![
        Turn::http_error(429, &[("retry-after", "0.4")], body),
        Turn::text("ok"),
    ]);
    let (events, message) = run(&fake).await;
    assert_eq!(message.unwrap().text(), "ok");
    let retry = matches!(
        events[0],
        ModelEvent::Retrying {
            attempt: 1,
            delay_ms: 400,
            ..
        }
    );
    assert!(retry, "{events:?}");
    let r = fake.requests();
    assert!(r[1].received_at.duration_since(r[0].received_at) >= Duration::from_millis(400));
}

#[tokio::test]
async fn cut_streams_and_bodies_ending_before_a_finish_reason_are_network_errors() {
    let unfinished = chunk(json!([{"text": "Hal"}]), "", Value::Null);
    let finished = chunk(json!([{"text": "Hal"}]), "STOP", Value::Null);
    let fake = start(vec![
        Turn::Reply(Reply {
            text: Some("partial answer here".into()),
            ending: Ending::Cut { after_events: 2 },
            ..Reply::default()
        }),
        recorded_turn(&unfinished),
        recorded_turn(&finished),
    ]);
    let (events, result) = run(&fake).await;
    assert!(events.contains(&ModelEvent::TextDelta("part".into())));
    assert_eq!(result.unwrap_err().kind(), "network");
    assert_eq!(fake.requests().len(), 1, "no retry after output");
    // A body that ends cleanly but before any finish reason is incomplete; one after it is not.
    let (_, result) = run(&fake).await;
    assert_eq!(
        result.unwrap_err(),
        LlmError::Network {
            message: "the stream ended before the response was complete".into()
        }
    );
    let (_, message) = run(&fake).await;
    assert_eq!(message.unwrap().text(), "Hal");
}

#[tokio::test]
async fn request_url_key_header_and_body_carry_signatures_back_on_their_parts() {
    let fake = start(vec![
        Turn::Reply(Reply {
            text: Some("Checking.".into()),
            tool_calls: Turn::tool_calls(&[
                ("call_1", "read_file", r#"{"file_path": "a.txt"}"#),
                ("", "list_dir", r#"{"directory": "."}"#),
            ])
            .calls(),
            ..Reply::default()
        }),
        Turn::text("Done."),
    ]);
    let client = client(&fake);
    let (_, first) = collect(&*client, request(vec![Message::user("read it")])).await;
    let first = first.unwrap();
    let invented = first.parts[2].tool_call_id().unwrap().to_string();
    let mut next = request(vec![
        Message::user("read it"),
        first,
        Message::request(vec![
            Part::tool_return("call_1", "read_file", "alpha°"),
            Part::retry_prompt(invented.as_str(), "list_dir", "no such directory"),
        ]),
    ]);
    next.tools = vec![ToolSpec {
        name: "read_file".into(),
        description: "Reads a file.".into(),
        parameters: json!({"type": "object", "additionalProperties": false,
                           "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}),
    }].into();
    next.reasoning = Some("medium".into());
    next.max_output_tokens = Some(2048);
    let (_, second) = collect(&*client, next).await;
    assert_eq!(second.unwrap().text(), "Done.");

    let requests = fake.requests();
    for r in &requests {
        assert_eq!(
            r.path,
            "/v1/models/test-model:streamGenerateContent?alt=sse"
        );
        assert_eq!(r.header("x-goog-api-key"), Some("test-key"));
        assert_eq!(r.header("authorization"), None);
    }
    assert_eq!(
        requests[0].body,
        json!({
            "systemInstruction": {"parts": [{"text": "sys"}]},
            "contents": [{"role": "user", "parts": [{"text": "read it"}]}]
        })
    );
    assert_eq!(
        requests[1].body,
        json!({
            "systemInstruction": {"parts": [{"text": "sys"}]},
            "contents": [
                {"role": "user", "parts": [{"text": "read it"}]},
                {"role": "model", "parts": [
                    {"text": "Checking."},
                    {"functionCall": {"name": "read_file", "args": {"file_path": "a.txt"}, "id": "call_1"},
                     "thoughtSignature": Gemini::thought_signature(1, 0)},
                    {"functionCall": {"name": "list_dir", "args": {"directory": "."}, "id": invented},
                     "thoughtSignature": Gemini::thought_signature(1, 1)}
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "read_file", "response": {"result": "alpha°"}, "id": "call_1"}},
                    {"functionResponse": {"name": "list_dir",
                        "response": {"error": "no such directory\n\nFix the errors and try again."}, "id": invented}}
                ]}
            ],
            "tools": [{"functionDeclarations": [{"name": "read_file", "description": "Reads a file.",
                "parameters": {"type": "object", "properties": {"file_path": {"type": "string"}},
                               "required": ["file_path"]}}]}],
            "generationConfig": {"maxOutputTokens": 2048,
                                 "thinkingConfig": {"includeThoughts": true, "thinkingBudget": 8192}}
        })
    );
}

#[tokio::test]
async fn a_signature_on_an_empty_text_part_goes_back_on_that_part() {
    // After text, the signature joins the text part; with no text at all, the assembler makes an
    // empty text part for it, which must still be sent back (with its signature, as received).
    let after_text = [
        chunk(json!([{"text": "Answer."}]), "", Value::Null),
        chunk(
            json!([{"text": "", "thoughtSignature": "End+Sig/1=="}]),
            "STOP",
            Value::Null,
        ),
    ]
    .concat();
    let alone = [
        chunk(
            json!([{"text": "pondering", "thought": true}]),
            "",
            Value::Null,
        ),
        chunk(
            json!([{"text": "", "thoughtSignature": "End+Sig/2=="}]),
            "STOP",
            Value::Null,
        ),
    ]
    .concat();
    let fake = start(vec![
        recorded_turn(&after_text),
        recorded_turn(&alone),
        Turn::text("ok"),
    ]);
    let client = client(&fake);
    let (_, one) = collect(&*client, request(vec![Message::user("a")])).await;
    let (_, two) = collect(&*client, request(vec![Message::user("b")])).await;
    let (one, two) = (one.unwrap(), two.unwrap());
    assert_eq!(
        one.parts,
        vec![signed(Part::text("Answer."), "End+Sig/1==")]
    );
    assert_eq!(
        two.parts,
        vec![
            with_details(
                Part::thinking("pondering", None),
                json!({"provider": "google"})
            ),
            signed(Part::text(""), "End+Sig/2=="),
        ]
    );
    let history = vec![
        Message::user("a"),
        one,
        Message::user("b"),
        two,
        Message::user("c"),
    ];
    let (_, last) = collect(&*client, request(history)).await;
    assert_eq!(last.unwrap().text(), "ok");
    assert_eq!(
        fake.requests()[2].body["contents"],
        json!([
            {"role": "user", "parts": [{"text": "a"}]},
            {"role": "model", "parts": [{"text": "Answer.", "thoughtSignature": "End+Sig/1=="}]},
            {"role": "user", "parts": [{"text": "b"}]},
            {"role": "model", "parts": [{"text": "", "thoughtSignature": "End+Sig/2=="}]},
            {"role": "user", "parts": [{"text": "c"}]}
        ])
    );
}
