//! Recorded OpenAI Chat Completions and OpenRouter traffic replayed through the real Chat client.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::{collect, load_cassette, recorded_turn};
use tunacode_llm::openai_chat::{ChatDialect, build_body};
use tunacode_llm::{LlmError, ModelEvent, ModelId, ModelRequest, ProviderSettings, create_client};
use tunacode_protocol::{Message, Part, Usage};
use tunacode_testkit::FakeProvider;

async fn replay(provider: &str, body: &str) -> (Vec<ModelEvent>, Result<Message, LlmError>) {
    let fake = FakeProvider::start(vec![recorded_turn(body)]);
    let id = ModelId::parse(&format!("{provider}:m")).unwrap();
    let settings = ProviderSettings::for_model(&id, Some(fake.base_url()), None).unwrap();
    let client = create_client(&settings).unwrap();
    collect(
        client.as_ref(),
        ModelRequest {
            model: "m".into(),
            messages: vec![Message::user("q")].into(),
            ..Default::default()
        },
    )
    .await
}

fn usage_of(events: &[ModelEvent]) -> Option<Usage> {
    events.iter().rev().find_map(|e| match e {
        ModelEvent::Usage(u) => Some(*u),
        _ => None,
    })
}

#[tokio::test]
async fn openai_chat_tool_roundtrip() {
    let cassette = load_cassette("openai-chat-stream-tool-roundtrip.yaml");
    assert_eq!(cassette.len(), 2);
    let (events, first) = replay("openai", &cassette[0].response_body).await;
    let first = first.unwrap();
    insta::assert_json_snapshot!("openai_chat_tool_call", first);
    let call = first.tool_calls().next().unwrap().clone();
    assert_eq!(
        (call.tool_name.as_str(), call.args.to_value()),
        ("get_capital", json!({"country": "UK"}))
    );
    assert!(usage_of(&events).is_some_and(|u| u.request_tokens > 0 && u.response_tokens > 0));

    // The follow-up request we build has the shape of the recorded one.
    let recorded = cassette[1].request_body.clone().unwrap();
    let user_text = recorded["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    let tool_result = recorded["messages"][2]["content"]
        .as_str()
        .unwrap()
        .to_string();
    let history = vec![
        Message::user(user_text),
        first,
        Message::request(vec![Part::tool_return(
            &call.tool_call_id,
            "get_capital",
            tool_result,
        )]),
    ];
    let ours = build_body(
        &ModelRequest {
            model: "gpt-4o-mini".into(),
            messages: history.into(),
            ..Default::default()
        },
        ChatDialect::default(),
    );
    let strip = |m: &Value| {
        let mut m = m.clone();
        if let Some(o) = m.as_object_mut() {
            o.retain(|k, v| !(v.is_null() || (k == "content" && v == "")));
        }
        m
    };
    let ours_msgs: Vec<Value> = ours["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(strip)
        .collect();
    let theirs: Vec<Value> = recorded["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(strip)
        .collect();
    assert_eq!(ours_msgs, theirs);

    let (events, second) = replay("openai", &cassette[1].response_body).await;
    insta::assert_json_snapshot!("openai_chat_final_text", second.unwrap());
    assert!(usage_of(&events).is_some());
}

#[tokio::test]
async fn openrouter_reasoning_details_are_kept_and_sent_back_byte_exact() {
    let cassette = load_cassette("openrouter-stream-reasoning.yaml");
    let (events, message) = replay("openrouter", &cassette[0].response_body).await;
    let message = message.unwrap();
    insta::assert_json_snapshot!("openrouter_reasoning", message);
    assert_eq!(message.text(), "2 + 2 = 4");
    let usage = usage_of(&events).unwrap();
    assert_eq!(
        (usage.request_tokens, usage.response_tokens, usage.cost),
        (43, 36, 0.000669)
    );

    let raw = &cassette[0].response_body;
    let signature = raw
        .split("\"signature\":\"")
        .nth(2)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert!(signature.len() > 100);
    let history = vec![
        Message::user("What is 2+2?"),
        message,
        Message::user("and 3+3?"),
    ];
    let request = ModelRequest {
        model: "anthropic/claude-sonnet-4.5".into(),
        messages: history.into(),
        ..Default::default()
    };
    let body = build_body(
        &request,
        ChatDialect {
            openrouter: true,
            images: true,
        },
    );
    let assistant = &body["messages"][1];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(assistant["reasoning_details"][0]["signature"], signature);
    assert_eq!(
        assistant["reasoning_details"][0]["text"],
        "This is a simple arithmetic question. 2+2 equals 4."
    );
    let plain = build_body(&request, ChatDialect::default());
    assert!(
        plain["messages"][1].get("reasoning_details").is_none(),
        "only OpenRouter gets them"
    );
}

#[tokio::test]
async fn openrouter_error_inside_a_200_stream_is_reported_after_the_reasoning() {
    let cassette = load_cassette("openrouter-stream-error-in-200.yaml");
    let (events, result) = replay("openrouter", &cassette[0].response_body).await;
    let err = result.unwrap_err();
    assert_eq!(
        err,
        LlmError::BadRequest {
            status: 400,
            message: "Token limit reached".into()
        }
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, ModelEvent::ThinkingDelta(_))),
        "reasoning streamed first"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, ModelEvent::Finish(r) if r == "length"))
    );
}

#[tokio::test]
async fn local_server_quirks_whole_tool_call_reasoning_field_no_usage_no_done() {
    let body = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning\":\"need files\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_x\",\"type\":\"function\",",
        "\"function\":{\"name\":\"glob\",\"arguments\":\"{\\\"pattern\\\":\\\"*.rs\\\"}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
    );
    let (events, message) = replay("ollama", body).await;
    let message = message.unwrap();
    assert_eq!(
        message.parts,
        vec![
            Part::thinking("need files", None),
            Part::tool_call("call_x", "glob", json!({"pattern": "*.rs"}))
        ]
    );
    assert_eq!(usage_of(&events), None);
}
