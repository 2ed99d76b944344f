//! Recorded OpenAI Responses streams (every Responses fixture in `tests/fixtures/recorded/`) replayed
//! through the real client over loopback HTTP: the canonical message in full, the usage, and the
//! follow-up request built from the replayed history.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tunacode_llm::openai_responses::build_body;
use tunacode_llm::{ModelEvent, ModelId, ModelRequest, ProviderSettings, WireApi, create_client};
use tunacode_protocol::{Message, Part, Usage};
use tunacode_testkit::{FakeOptions, FakeProvider, OpenAiResponses};

/// Replays `body` and returns the events and the assembled message.
async fn replay(body: &str, model: &str) -> (Vec<ModelEvent>, Message) {
    let fake = FakeProvider::start_with(
        Arc::new(OpenAiResponses),
        vec![support::recorded_turn(body)],
        FakeOptions::default(),
    );
    let id = ModelId::parse(&format!("openai:{model}")).unwrap();
    let settings = ProviderSettings::for_model_with_wire(
        &id,
        Some(fake.base_url()),
        Some("sk-replay".into()),
        Some(WireApi::OpenAiResponses),
    )
    .unwrap();
    let client = create_client(&settings).unwrap();
    let request = ModelRequest {
        model: model.into(),
        messages: vec![Message::user("replay")].into(),
        ..ModelRequest::default()
    };
    let (events, message) = support::collect(client.as_ref(), request).await;
    assert_eq!(fake.requests().len(), 1, "replayed without retries");
    (events, message.unwrap())
}

fn usage_of(events: &[ModelEvent]) -> Usage {
    events
        .iter()
        .find_map(|e| match e {
            ModelEvent::Usage(u) => Some(*u),
            _ => None,
        })
        .expect("usage event")
}

/// The `item` of the first event of `kind` about an item of `item_type`, read straight from the body.
fn recorded_item(body: &str, kind: &str, item_type: &str) -> Value {
    body.lines()
        .filter_map(|l| l.trim_start().strip_prefix("data: "))
        .map(|d| serde_json::from_str::<Value>(d).unwrap())
        .find(|d| d["type"] == kind && d["item"]["type"] == item_type)
        .map(|d| d["item"].clone())
        .expect("recorded item")
}

/// The follow-up request: the prompt, the replayed response, and an answer to its one tool call.
fn follow_up(prompt: &str, response: &Message, answer: &str) -> Value {
    let call = response.tool_calls().next().expect("a tool call");
    build_body(&ModelRequest {
        model: "gpt-test".into(),
        messages: vec![
            Message::user(prompt),
            response.clone(),
            Message::request(vec![Part::tool_return(
                call.tool_call_id.clone(),
                call.tool_name.clone(),
                answer,
            )]),
        ]
        .into(),
        ..ModelRequest::default()
    })
}

#[tokio::test]
async fn pydantic_reasoning_and_tool_call_replays_and_round_trips() {
    let cassette = support::load_cassette("openai-responses-stream-reasoning-tool.yaml");
    assert_eq!(cassette.len(), 1);
    let interaction = &cassette[0];
    assert!(interaction.uri.ends_with("/responses"));
    let body = &interaction.response_body;
    let (events, message) = replay(body, "gpt-5").await;

    insta::assert_json_snapshot!("pydantic_reasoning_tool_message", message);
    let done = recorded_item(body, "response.output_item.done", "reasoning");
    let added = recorded_item(body, "response.output_item.added", "reasoning");
    assert_ne!(done["encrypted_content"], added["encrypted_content"]);
    match &message.parts[0] {
        Part::Thinking(t) => {
            assert_eq!(t.signature.as_deref(), done["encrypted_content"].as_str())
        }
        other => panic!("expected reasoning first, got {other:?}"),
    }
    assert_eq!(
        usage_of(&events),
        Usage {
            request_tokens: 53,
            response_tokens: 469,
            cached_tokens: 0,
            reasoning_tokens: 448,
            ..Usage::default()
        }
    );

    let next = follow_up("Calculate 100 * 200 / 3", &message, "6666 it is");
    assert_eq!(
        next["input"],
        json!([
            {"role": "user", "content": "Calculate 100 * 200 / 3"},
            {"type": "reasoning", "id": "rs_0050471a34b36ae60068c97bac4dcc819595fd0f80d6b3c405",
             "summary": [], "encrypted_content": done["encrypted_content"]},
            {"type": "function_call", "id": "fc_0050471a34b36ae60068c97bf19d9c819590eaf42c0edc1042",
             "call_id": "call_CWXgs68YprAjp6t0371hiPOI", "name": "final_result",
             "arguments": "{\"result\":6666}"},
            {"type": "function_call_output", "call_id": "call_CWXgs68YprAjp6t0371hiPOI",
             "output": "6666 it is"}
        ])
    );
}

#[tokio::test]
async fn genai_raw_tool_stream_replays_and_round_trips() {
    let body = support::load_raw("openai-responses-raw-sse-tools.txt");
    let (events, message) = replay(&body, "gpt-5.4-mini").await;

    insta::assert_json_snapshot!("genai_raw_tools_message", message);
    assert_eq!(
        usage_of(&events),
        Usage {
            request_tokens: 106,
            response_tokens: 36,
            cached_tokens: 0,
            reasoning_tokens: 8,
            ..Usage::default()
        }
    );
    let pieces = events
        .iter()
        .filter(|e| matches!(e, ModelEvent::ToolCallArgs { .. }))
        .count();
    assert_eq!(
        pieces, 13,
        "one event per recorded delta, `.done` not repeated"
    );

    // This recording's reasoning item has no encrypted content (its request did not ask for it), so a
    // stateless follow-up cannot carry it and leaves it out; the call and its answer stay paired.
    let next = follow_up("Weather in Paris?", &message, "22C, sunny");
    assert_eq!(
        next["input"],
        json!([
            {"role": "user", "content": "Weather in Paris?"},
            {"type": "function_call", "id": "fc_0730d762b8425ec20169c30ba8b9ac8191aafd96bcd59965c2",
             "call_id": "call_lXXeAhYrkvWB3R6d2q5F8MbU", "name": "get_weather",
             "arguments": "{\"city\":\"Paris\",\"country\":\"France\",\"unit\":\"C\"}"},
            {"type": "function_call_output", "call_id": "call_lXXeAhYrkvWB3R6d2q5F8MbU",
             "output": "22C, sunny"}
        ])
    );
}
