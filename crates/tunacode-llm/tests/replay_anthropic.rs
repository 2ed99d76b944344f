//! Replays every recorded Anthropic Messages stream (`tests/fixtures/recorded/anthropic-*.yaml`)
//! through the real client over loopback HTTP, checks the canonical message in full, and checks that
//! the follow-up request we build matches what the recording sent (thinking signature byte-exact,
//! tool_use/tool_result pairing).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::{Interaction, collect, load_cassette, recorded_turn};
use tunacode_llm::anthropic::build_body;
use tunacode_llm::{ModelEvent, ModelId, ModelRequest, ProviderSettings, create_client};
use tunacode_protocol::{Message, Part, Usage};
use tunacode_testkit::{AnthropicMessages, FakeOptions, FakeProvider};

/// Streams one recorded response through the client; returns the events and the message.
async fn replay(interaction: &Interaction, request: ModelRequest) -> (Vec<ModelEvent>, Message) {
    assert_eq!(interaction.status, 200);
    let fake = FakeProvider::start_with(
        Arc::new(AnthropicMessages),
        vec![recorded_turn(&interaction.response_body)],
        FakeOptions::default(),
    );
    let id = ModelId::parse("anthropic:claude-test").unwrap();
    let mut settings =
        ProviderSettings::for_model(&id, Some(fake.base_url()), Some("test-key".into())).unwrap();
    settings.idle_timeout = Duration::from_secs(5);
    let client = create_client(&settings).unwrap();
    let (events, message) = collect(client.as_ref(), request).await;
    assert_eq!(fake.requests().len(), 1, "no retries");
    (events, message.expect("the recorded stream decodes"))
}

/// The first user text and the system prompt of a recorded request, as a [`ModelRequest`].
fn request_like(recorded: &Value) -> ModelRequest {
    ModelRequest {
        model: recorded["model"].as_str().unwrap().into(),
        system: recorded["system"].as_str().unwrap_or("").into(),
        messages: vec![Message::user(
            recorded["messages"][0]["content"][0]["text"]
                .as_str()
                .unwrap(),
        )]
        .into(),
        max_output_tokens: recorded["max_tokens"].as_u64().map(|n| n as u32),
        ..Default::default()
    }
}

fn only_usage(events: &[ModelEvent]) -> Usage {
    let usages: Vec<Usage> = events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::Usage(u) => Some(*u),
            _ => None,
        })
        .collect();
    assert_eq!(usages.len(), 1, "{events:?}");
    usages[0]
}

/// The `data:` payloads of a recorded SSE body, parsed independently of the client.
fn payloads(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).expect("recorded payload is JSON"))
        .collect()
}

#[tokio::test]
async fn thinking_stream_replays_and_its_signature_goes_back_byte_exact() {
    let cassette = load_cassette("anthropic-stream-thinking.yaml");
    assert_eq!(cassette.len(), 1);
    let recorded_request = cassette[0].request_body.clone().unwrap();
    let mut request = request_like(&recorded_request);
    request.reasoning = Some("low".into());
    let (events, message) = replay(&cassette[0], request.clone()).await;
    insta::assert_json_snapshot!("thinking_message", message);

    // Independently of the decoder: the signature and texts as recorded.
    let data = payloads(&cassette[0].response_body);
    let delta = |kind: &str, field: &str| -> String {
        data.iter()
            .filter(|d| d["delta"]["type"] == kind)
            .map(|d| d["delta"][field].as_str().unwrap())
            .collect()
    };
    let signature = delta("signature_delta", "signature");
    assert!(signature.starts_with("Eu4CCkYICxgCKkCptg1G") && signature.ends_with("GAE="));
    let thinking = delta("thinking_delta", "thinking");
    assert_eq!(
        message.parts[0],
        Part::Thinking(tunacode_protocol::ThinkingPart {
            content: thinking.clone(),
            signature: Some(signature.clone()),
            extra: json!({"provider_details": {"provider": "anthropic"}})
                .as_object()
                .unwrap()
                .clone()
                .into(),
        })
    );
    assert_eq!(message.parts[1], Part::text(delta("text_delta", "text")));
    assert_eq!(message.parts.len(), 2);
    assert_eq!(message.extra["finish_reason"], "stop");
    assert_eq!(
        message.extra["provider_details"],
        json!({"provider": "anthropic", "id": "msg_01A6gwM9ZYySVuWAZxJ5Keko",
               "model": "claude-sonnet-4-20250514"})
    );
    assert_eq!(
        only_usage(&events),
        Usage {
            request_tokens: 43,
            response_tokens: 277,
            ..Usage::default()
        }
    );

    // Our first request has the recorded shape (thinking on, the user text block).
    let ours = build_body(&request);
    assert_eq!(
        without_cache_marks(&ours["messages"]),
        recorded_request["messages"]
    );
    assert_eq!(
        ours["thinking"]["type"],
        recorded_request["thinking"]["type"]
    );

    // The follow-up sends the thinking block back unchanged, signature byte-exact.
    let follow_up = ModelRequest {
        messages: vec![
            request.messages[0].clone(),
            message,
            Message::user("And at night?"),
        ]
        .into(),
        ..request
    };
    let body = build_body(&follow_up);
    assert_eq!(
        body["messages"][1]["content"][0],
        json!({"type": "thinking", "thinking": thinking, "signature": signature})
    );
    assert!(
        serde_json::to_string(&body)
            .unwrap()
            .contains(&format!("\"signature\":\"{signature}\""))
    );
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user"]);
}

#[tokio::test]
async fn tool_use_stream_replays_and_the_follow_up_matches_the_recorded_request() {
    let cassette = load_cassette("anthropic-stream-tool-use.yaml");
    assert_eq!(cassette.len(), 2);
    let first_request = cassette[0].request_body.clone().unwrap();
    let request = request_like(&first_request);
    assert_eq!(
        without_cache_marks(&build_body(&request)["messages"]),
        first_request["messages"],
        "first request"
    );

    // 1. The bash tool call (a client-executed `bash_20250124` tool; decoding is the same).
    let (events, call_message) = replay(&cassette[0], request.clone()).await;
    insta::assert_json_snapshot!("tool_use_message", call_message);
    assert_eq!(
        call_message.parts,
        vec![Part::tool_call(
            "toolu_015Rk6ndKaiXYx9AiJcpUR2H",
            "bash",
            json!({"command": "python3 -c \"print(2 + 2)\""})
        )]
    );
    assert_eq!(call_message.extra["finish_reason"], "tool_calls");
    assert_eq!(
        only_usage(&events),
        Usage {
            request_tokens: 774,
            response_tokens: 65,
            ..Usage::default()
        }
    );

    // 2. The follow-up request we build is the recorded second request's conversation.
    let history = vec![
        request.messages[0].clone(),
        call_message,
        Message::request(vec![Part::tool_return(
            "toolu_015Rk6ndKaiXYx9AiJcpUR2H",
            "bash",
            "4",
        )]),
    ];
    // The recorded request defined the tool (Anthropic refuses tool blocks without tools).
    let follow_up = ModelRequest {
        messages: history.clone().into(),
        tools: vec![tunacode_protocol::ToolSpec {
            name: "bash".into(),
            description: "Run a command".into(),
            parameters: json!({"type": "object", "properties": {"command": {"type": "string"}}}),
        }]
        .into(),
        ..request.clone()
    };
    let body = build_body(&follow_up);
    let second_request = cassette[1].request_body.clone().unwrap();
    assert_eq!(
        without_cache_marks(&body["messages"]),
        second_request["messages"]
    );
    // We send the system prompt as a block so it can carry a cache breakpoint; same text.
    assert_eq!(body["system"][0]["text"], second_request["system"]);
    assert_eq!(body["max_tokens"], second_request["max_tokens"]);
    assert_eq!(
        body["messages"][1]["content"][0]["id"],
        body["messages"][2]["content"][0]["tool_use_id"]
    );

    // 3. The final answer, with its 4-byte emoji intact.
    let (events, answer) = replay(&cassette[1], follow_up).await;
    insta::assert_json_snapshot!("tool_use_answer", answer);
    assert_eq!(answer.text(), "The result of **2 + 2 = 4**! 🎉");
    assert!(answer.text().ends_with('\u{1F389}'));
    assert_eq!(answer.extra["finish_reason"], "stop");
    assert_eq!(
        only_usage(&events),
        Usage {
            request_tokens: 953,
            response_tokens: 22,
            ..Usage::default()
        }
    );
}

/// Our body without its prompt-cache breakpoints (the recorded client asked for none; everything else
/// must match).
fn without_cache_marks(value: &serde_json::Value) -> serde_json::Value {
    tunacode_testkit::without_key(value, "cache_control")
}
