//! The OpenAI Responses client against the fake provider speaking the real Responses SSE format.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tunacode_llm::{LlmError, ModelClient, ModelEvent, ModelRequest, WireApi, create_client};
use tunacode_protocol::{Message, Part, ToolSpec, Usage};
use tunacode_testkit::{
    Ending, FakeOptions, FakeProvider, OpenAiResponses, Reply, ScriptedUsage, Turn,
};

fn start(script: Vec<Turn>) -> FakeProvider {
    FakeProvider::start_with(Arc::new(OpenAiResponses), script, FakeOptions::default())
}

fn client(fake: &FakeProvider, key: Option<&str>) -> Arc<dyn ModelClient> {
    let s = support::fast_settings(
        "openai:gpt-test",
        fake.base_url(),
        key,
        Some(WireApi::OpenAiResponses),
    );
    create_client(&s).unwrap()
}

fn request() -> ModelRequest {
    ModelRequest {
        model: "gpt-test".into(),
        system: "sys".into(),
        messages: vec![Message::user("hi")].into(),
        ..Default::default()
    }
}

async fn collect(
    fake: &FakeProvider,
    key: Option<&str>,
) -> (Vec<ModelEvent>, Result<Message, LlmError>) {
    support::collect(client(fake, key).as_ref(), request()).await
}

fn usage_of(events: &[ModelEvent]) -> Option<Usage> {
    events.iter().find_map(|e| match e {
        ModelEvent::Usage(u) => Some(*u),
        _ => None,
    })
}

#[tokio::test]
async fn text_reply_assembles_one_text_part_with_response_details() {
    let fake = start(vec![Turn::text("Hello from Responses.")]);
    let (events, message) = collect(&fake, None).await;
    assert_eq!(
        serde_json::to_value(message.unwrap()).unwrap(),
        json!({"kind": "response", "parts": [{"part_kind": "text", "content": "Hello from Responses."}],
               "provider_details": {"id": "resp_fake_1", "model": "gpt-test"},
               "finish_reason": "stop"})
    );
    let deltas = events
        .iter()
        .filter(|e| matches!(e, ModelEvent::TextDelta(_)))
        .count();
    assert_eq!(deltas, 6, "text arrives in pieces");
    assert_eq!(fake.requests()[0].path, "/v1/responses");
}

#[tokio::test]
async fn two_tool_calls_with_split_arguments_keep_call_and_item_ids() {
    let fake = start(vec![Turn::tool_calls(&[
        ("call_a", "read_file", r#"{"file_path": "src/main.rs"}"#),
        ("call_b", "grep", r#"{"pattern": "fn main", "path": "."}"#),
    ])]);
    let (events, message) = collect(&fake, None).await;
    let message = message.unwrap();
    assert_eq!(
        serde_json::to_value(&message.parts).unwrap(),
        json!([
            {"part_kind": "tool-call", "tool_call_id": "call_a", "tool_name": "read_file",
             "args": {"file_path": "src/main.rs"}, "provider_details": {"item_id": "fc_1_0"}},
            {"part_kind": "tool-call", "tool_call_id": "call_b", "tool_name": "grep",
             "args": {"pattern": "fn main", "path": "."}, "provider_details": {"item_id": "fc_1_1"}}
        ])
    );
    assert_eq!(message.extra["finish_reason"], "tool_calls");
    let pieces: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::ToolCallArgs { index, .. } => Some(*index),
            _ => None,
        })
        .collect();
    assert_eq!(pieces, [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1]);
}

#[tokio::test]
async fn reasoning_keeps_its_summary_id_and_encrypted_content() {
    let fake = start(vec![Turn::Reply(Reply {
        reasoning: Some("Check the file first.".into()),
        text: Some("Done.".into()),
        ..Reply::default()
    })]);
    let (events, message) = collect(&fake, None).await;
    let message = message.unwrap();
    assert_eq!(
        serde_json::to_value(&message.parts).unwrap(),
        json!([
            {"part_kind": "thinking", "content": "Check the file first.", "signature": "enc-1",
             "provider_details": {"provider": "openai-responses", "id": "rs_1"}},
            {"part_kind": "text", "content": "Done."}
        ])
    );
    assert!(
        events
            .iter()
            .filter(|e| matches!(e, ModelEvent::ThinkingDelta(_)))
            .count()
            > 1,
        "reasoning streams in pieces: {events:?}"
    );
}

#[tokio::test]
async fn usage_counts_reasoning_and_cached_tokens() {
    let fake = start(vec![Turn::Reply(Reply {
        reasoning: Some("sixteen chars!!!".into()),
        text: Some("ok".into()),
        usage: Some(ScriptedUsage {
            prompt_tokens: 50,
            completion_tokens: 20,
            cached_tokens: 30,
        }),
        ..Reply::default()
    })]);
    let (events, message) = collect(&fake, None).await;
    assert_eq!(message.unwrap().extra["finish_reason"], "stop");
    assert_eq!(
        usage_of(&events),
        Some(Usage {
            request_tokens: 50,
            response_tokens: 20,
            cached_tokens: 30,
            reasoning_tokens: 4,
            ..Usage::default()
        })
    );
}

#[tokio::test]
async fn an_error_event_after_output_fails_the_call_without_retry() {
    let body = concat!(
        "event: response.created\n",
        "data: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_x\",\"model\":\"gpt-test\"}}\n\n",
        "event: response.output_text.delta\n",
        "data: {\"type\":\"response.output_text.delta\",\"sequence_number\":1,\"output_index\":0,\"delta\":\"Partial\"}\n\n",
        "event: error\n",
        "data: {\"type\":\"error\",\"sequence_number\":2,\"code\":\"context_length_exceeded\",\"message\":\"Your input exceeds the context window of this model.\",\"param\":null}\n\n",
    );
    let fake = start(vec![support::recorded_turn(body), Turn::text("never")]);
    let (events, result) = collect(&fake, None).await;
    assert_eq!(
        result.unwrap_err(),
        LlmError::ContextOverflow {
            message: "Your input exceeds the context window of this model.".into()
        }
    );
    assert!(events.contains(&ModelEvent::TextDelta("Partial".into())));
    assert_eq!(fake.requests().len(), 1, "no retry once output was seen");
}

#[tokio::test]
async fn a_failed_response_before_any_output_is_retried() {
    let body = concat!(
        "event: response.created\n",
        "data: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_x\",\"model\":\"gpt-test\"}}\n\n",
        "event: response.failed\n",
        "data: {\"type\":\"response.failed\",\"sequence_number\":1,\"response\":{\"id\":\"resp_x\",\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"The server had an error.\"}}}\n\n",
    );
    let fake = start(vec![support::recorded_turn(body), Turn::text("ok")]);
    let (events, result) = collect(&fake, None).await;
    assert_eq!(result.unwrap().text(), "ok");
    match &events[0] {
        ModelEvent::Retrying {
            attempt: 1, error, ..
        } => {
            assert!(error.contains("The server had an error."), "{error}")
        }
        other => panic!("expected a retry notice, got {other:?}"),
    }
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn rate_limit_retry_after_is_honoured() {
    let fake = start(vec![
        Turn::http_error(
            429,
            &[("retry-after", "1")],
            r#"{"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}"#,
        ),
        Turn::text("ok"),
    ]);
    let (events, message) = collect(&fake, None).await;
    assert_eq!(message.unwrap().text(), "ok");
    assert!(
        matches!(
            events[0],
            ModelEvent::Retrying {
                attempt: 1,
                delay_ms: 1000,
                ..
            }
        ),
        "{events:?}"
    );
    let r = fake.requests();
    assert_eq!(r.len(), 2);
    assert!(r[1].received_at.duration_since(r[0].received_at) >= Duration::from_secs(1));
}

#[tokio::test]
async fn a_cut_stream_is_a_network_error() {
    let fake = start(vec![Turn::Reply(Reply {
        text: Some("a longer answer that gets cut".into()),
        ending: Ending::Cut { after_events: 6 },
        ..Reply::default()
    })]);
    let (events, result) = collect(&fake, None).await;
    let err = result.unwrap_err();
    assert_eq!(err.kind(), "network", "{err}");
    assert!(events.contains(&ModelEvent::TextDelta("a lo".into())));
    assert_eq!(fake.requests().len(), 1, "no retry after output");
}

#[tokio::test]
async fn request_body_and_authorization_header() {
    let fake = start(vec![Turn::text("ok")]);
    let mut req = request();
    std::sync::Arc::make_mut(&mut req.messages).push(Message::response(vec![
        Part::text("Looking."),
        Part::tool_call("call_1", "list_dir", json!({"directory": "."})),
    ]));
    std::sync::Arc::make_mut(&mut req.messages).push(Message::request(vec![Part::tool_return(
        "call_1", "list_dir", "a.txt",
    )]));
    req.tools = vec![ToolSpec {
        name: "list_dir".into(),
        description: "Lists a directory.".into(),
        parameters: json!({"type": "object", "properties": {"directory": {"type": "string"}}}),
    }]
    .into();
    req.max_output_tokens = Some(2048);
    req.reasoning = Some("medium".into());
    let (_, message) = support::collect(client(&fake, Some("sk-test")).as_ref(), req).await;
    assert_eq!(message.unwrap().text(), "ok");
    let recorded = &fake.requests()[0];
    assert_eq!(recorded.path, "/v1/responses");
    assert_eq!(recorded.header("authorization"), Some("Bearer sk-test"));
    let expected: Value = json!({
        "model": "gpt-test",
        "instructions": "sys",
        "input": [
            {"role": "user", "content": "hi"},
            {"type": "message", "role": "assistant",
             "content": [{"type": "output_text", "text": "Looking."}]},
            {"type": "function_call", "call_id": "call_1", "name": "list_dir",
             "arguments": "{\"directory\":\".\"}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "a.txt"}
        ],
        "tools": [{"type": "function", "name": "list_dir", "description": "Lists a directory.",
                   "parameters": {"type": "object", "properties": {"directory": {"type": "string"}}},
                   "strict": false}],
        "stream": true,
        "store": false,
        "include": ["reasoning.encrypted_content"],
        "max_output_tokens": 2048,
        "reasoning": {"effort": "medium", "summary": "auto"}
    });
    assert_eq!(recorded.body, expected);
}

#[tokio::test]
async fn no_key_sends_no_authorization_header() {
    let fake = start(vec![Turn::text("ok")]);
    let (_, message) = collect(&fake, None).await;
    assert_eq!(message.unwrap().text(), "ok");
    assert_eq!(fake.requests()[0].header("authorization"), None);
}

#[tokio::test]
async fn an_auth_error_names_the_key_variable() {
    let fake = start(vec![Turn::http_error(
        401,
        &[],
        r#"{"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}"#,
    )]);
    let (_, result) = collect(&fake, Some("bad")).await;
    let err = result.unwrap_err();
    assert_eq!(err.kind(), "auth");
    assert!(err.to_string().contains("OPENAI_API_KEY"), "{err}");
}
