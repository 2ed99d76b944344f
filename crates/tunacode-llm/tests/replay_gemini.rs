//! Every recorded Gemini response (see `tests/fixtures/recorded/README.md`) replayed through the real
//! Gemini client over loopback HTTP: the canonical message in full, usage, and the follow-up request
//! built from it compared with the request the recording made.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::{Interaction, collect, load_cassette, load_raw, recorded_turn};
use tunacode_llm::gemini::{SKIP_SIGNATURE, build_body};
use tunacode_llm::{
    ModelClient, ModelEvent, ModelId, ModelRequest, ProviderSettings, create_client,
};
use tunacode_protocol::{Message, Part, ToolSpec, Usage};
use tunacode_testkit::{FakeOptions, FakeProvider, Gemini};

fn client(fake: &FakeProvider) -> Arc<dyn ModelClient> {
    let id = ModelId::parse("google:replay").unwrap();
    let s =
        ProviderSettings::for_model(&id, Some(fake.base_url()), Some("test-key".into())).unwrap();
    create_client(&s).unwrap()
}

/// Replays one recorded SSE body and returns the assembled message and its usage.
async fn replay(body: &str, request: ModelRequest) -> (Message, Usage) {
    assert!(
        body.ends_with("}\r\n\r\n")
            && body.matches("\r\n\r\n").count() == body.matches("data: ").count(),
        "the recording uses CRLF event separators"
    );
    let fake = FakeProvider::start_with(
        Arc::new(Gemini),
        vec![recorded_turn(body)],
        FakeOptions::default(),
    );
    let (events, message) = collect(&*client(&fake), request).await;
    let usages: Vec<Usage> = events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::Usage(u) => Some(*u),
            _ => None,
        })
        .collect();
    assert_eq!(usages.len(), 1, "one usage event: {events:?}");
    (message.unwrap(), usages[0])
}

/// The message as JSON, with ids the assembler invented (random) replaced by a stable marker.
fn snapshot_value(message: &Message) -> Value {
    let mut value = serde_json::to_value(message).unwrap();
    for part in value["parts"].as_array_mut().unwrap() {
        if let Some(id) = part.get("tool_call_id").and_then(Value::as_str)
            && id.starts_with("call_")
        {
            part["tool_call_id"] = json!("<invented>");
        }
    }
    value
}

/// The `thoughtSignature`s of every part of a raw SSE body, read straight from the JSON.
fn signatures_in(body: &str) -> Vec<String> {
    body.split("data: ")
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .flat_map(|c| {
            c["candidates"][0]["content"]["parts"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|p| p["thoughtSignature"].as_str().map(str::to_string))
        .collect()
}

/// Tool specs from a recorded request's `functionDeclarations` (pydantic-ai's `parameters_json_schema`).
fn tools_of(recorded: &Value) -> Vec<ToolSpec> {
    recorded["tools"][0]["functionDeclarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| ToolSpec {
            name: d["name"].as_str().unwrap().into(),
            description: d["description"].as_str().unwrap().into(),
            parameters: d["parameters_json_schema"].clone(),
        })
        .collect()
}

fn request_like(recorded: &Value, model: &str, messages: Vec<Message>) -> ModelRequest {
    ModelRequest {
        model: model.into(),
        system: recorded
            .pointer("/systemInstruction/parts/0/text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .into(),
        messages: messages.into(),
        tools: tools_of(recorded).into(),
        ..ModelRequest::default()
    }
}

fn first_prompt(recorded: &Value) -> String {
    recorded["contents"][0]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .into()
}

/// A tool return answering the only call of `response`, with the result the recording sent.
fn answer(response: &Message, result: &str) -> Message {
    let call = response.tool_calls().next().unwrap();
    Message::request(vec![Part::tool_return(
        call.tool_call_id.as_str(),
        call.tool_name.as_str(),
        result,
    )])
}

/// `contents` with call ids replaced by their pairing number and the tool result under one key
/// (pydantic-ai sends `return_value`, TunaCode `result`), so our request and the recorded one compare
/// on what matters: roles, parts, names, arguments, pairing, signatures and result text.
fn normalized(contents: &Value) -> Value {
    let mut ids: Vec<String> = Vec::new();
    let mut out = contents.clone();
    for content in out.as_array_mut().unwrap() {
        for part in content["parts"].as_array_mut().unwrap() {
            for key in ["functionCall", "functionResponse"] {
                if let Some(obj) = part.get_mut(key).and_then(Value::as_object_mut) {
                    let id = obj["id"].as_str().unwrap().to_string();
                    let n = ids.iter().position(|i| *i == id).unwrap_or_else(|| {
                        ids.push(id);
                        ids.len() - 1
                    });
                    obj.insert("id".into(), json!(format!("pair-{n}")));
                    if let Some(response) = obj.get_mut("response") {
                        let value = response
                            .get("result")
                            .or_else(|| response.get("return_value"))
                            .cloned()
                            .unwrap();
                        *response = json!({"value": value});
                    }
                }
            }
        }
    }
    out
}

fn recorded_body(it: &Interaction) -> &Value {
    it.request_body.as_ref().unwrap()
}

#[tokio::test]
async fn tool_call_with_thought_signature_and_follow_up() {
    let its = load_cassette("gemini-stream-tool-thought-signature.yaml");
    assert_eq!(its.len(), 2);
    let first_req = recorded_body(&its[0]);
    let prompt = first_prompt(first_req);
    let model = "gemini-3-pro-preview";

    let req = request_like(first_req, model, vec![Message::user(prompt.as_str())]);
    let (response, usage) = replay(&its[0].response_body, req).await;
    insta::assert_json_snapshot!("thought_signature_call", snapshot_value(&response));
    assert_eq!(
        usage,
        Usage {
            request_tokens: 29,
            response_tokens: 120,
            reasoning_tokens: 110,
            ..Usage::default()
        }
    );

    // The follow-up request, from our history.
    let received = signatures_in(&its[0].response_body);
    assert_eq!(received.len(), 1);
    let history = vec![
        Message::user(prompt.as_str()),
        response.clone(),
        answer(&response, "Mexico"),
    ];
    let ours = build_body(&request_like(first_req, model, history.clone()));
    let recorded = recorded_body(&its[1]);
    let sent = ours["contents"][1]["parts"][0]["thoughtSignature"]
        .as_str()
        .unwrap();
    // Byte-exact: what Gemini sent, standard base64 with `+` and `/`.
    assert_eq!(sent, received[0]);
    assert!(sent.contains('+') && sent.contains('/'));
    // The recording's own follow-up shows the same bytes re-encoded as URL-safe base64 by the Python
    // client (it decodes the signature to bytes and the SDK encodes it back with `-` and `_`). Gemini
    // accepts both spellings of the same bytes; TunaCode never decodes it and sends back exactly what
    // it received, so ours differs from the recording only by that alphabet.
    let recorded_sig = recorded["contents"][1]["parts"][0]["thoughtSignature"]
        .as_str()
        .unwrap();
    assert_ne!(sent, recorded_sig);
    assert_eq!(sent.replace('+', "-").replace('/', "_"), recorded_sig);

    let mut ours_contents = ours["contents"].clone();
    ours_contents[1]["parts"][0]["thoughtSignature"] = json!(recorded_sig);
    assert_eq!(
        normalized(&ours_contents),
        normalized(&recorded["contents"])
    );
    assert_eq!(
        normalized(&ours_contents)[1],
        json!({"role": "model", "parts": [{"functionCall": {"name": "get_country", "args": {}, "id": "pair-0"},
               "thoughtSignature": recorded_sig}]})
    );
    // `get_country` takes no parameters: the declaration goes without a schema.
    assert_eq!(
        ours["tools"],
        json!([{"functionDeclarations": [{"name": "get_country", "description": ""}]}])
    );

    let (answer_msg, usage) = replay(
        &its[1].response_body,
        request_like(first_req, model, history),
    )
    .await;
    insta::assert_json_snapshot!("thought_signature_answer", snapshot_value(&answer_msg));
    // `promptTokenCount` jumps from 55 to 165 in the last chunk; the last value wins.
    assert_eq!(
        usage,
        Usage {
            request_tokens: 165,
            response_tokens: 8,
            ..Usage::default()
        }
    );
}

#[tokio::test]
async fn multi_step_tools_and_follow_ups_match_the_recorded_requests() {
    let its = load_cassette("gemini-stream-multi-step-tools.yaml");
    assert_eq!(its.len(), 3);
    let first_req = recorded_body(&its[0]);
    let model = "gemini-2.0-flash";
    let mut history = vec![Message::user(first_prompt(first_req).as_str())];

    // Step 1: get_capital(France) → "Paris".
    let (capital, usage) = replay(
        &its[0].response_body,
        request_like(first_req, model, history.clone()),
    )
    .await;
    assert_eq!(
        usage,
        Usage {
            request_tokens: 36,
            response_tokens: 5,
            ..Usage::default()
        }
    );
    history.extend([capital.clone(), answer(&capital, "Paris")]);
    let ours = build_body(&request_like(first_req, model, history.clone()));
    // Gemini 2.0 sent no signature; the call goes back with the documented placeholder, exactly as
    // the recording's follow-up did.
    assert_eq!(
        normalized(&ours["contents"]),
        normalized(&recorded_body(&its[1])["contents"])
    );
    assert_eq!(
        ours["contents"][1]["parts"][0]["thoughtSignature"],
        SKIP_SIGNATURE
    );
    assert_eq!(
        ours["systemInstruction"]["parts"],
        recorded_body(&its[1])["systemInstruction"]["parts"]
    );

    // Step 2: get_temperature(Paris) → "30°C".
    let (temperature, usage) = replay(
        &its[1].response_body,
        request_like(first_req, model, history.clone()),
    )
    .await;
    assert_eq!(usage.request_tokens, 48);
    history.extend([temperature.clone(), answer(&temperature, "30°C")]);
    let ours = build_body(&request_like(first_req, model, history.clone()));
    let recorded = recorded_body(&its[2]);
    assert_eq!(
        normalized(&ours["contents"]),
        normalized(&recorded["contents"])
    );
    assert_eq!(
        ours["contents"][4]["parts"][0]["functionResponse"]["response"],
        json!({"result": "30°C"})
    );

    // Step 3: the answer, with `°` intact.
    let (final_msg, usage) = replay(
        &its[2].response_body,
        request_like(first_req, model, history),
    )
    .await;
    assert_eq!(final_msg.text(), "The temperature in Paris is 30°C.");
    // Usage is inconsistent across chunks (169 then 63): the last chunk's wins.
    assert_eq!(
        usage,
        Usage {
            request_tokens: 63,
            response_tokens: 11,
            ..Usage::default()
        }
    );
    insta::assert_json_snapshot!(
        "multi_step",
        json!({
            "capital": snapshot_value(&capital),
            "temperature": snapshot_value(&temperature),
            "answer": snapshot_value(&final_msg),
        })
    );
}

#[tokio::test]
async fn raw_sse_with_thought_summary_text_and_a_signed_call() {
    let body = load_raw("gemini-raw-sse-tool.txt");
    assert_eq!(body.matches("\r\n\r\n").count(), 8, "CRLF separators");
    let prompt = "Which of Berlin, Paris and Cairo is in Africa? Get its weather.";
    let (response, usage) = replay(
        &body,
        ModelRequest {
            model: "gemini-3.1-pro-preview".into(),
            messages: vec![Message::user(prompt)].into(),
            ..ModelRequest::default()
        },
    )
    .await;
    insta::assert_json_snapshot!("raw_sse_tool", snapshot_value(&response));
    assert_eq!(
        usage,
        Usage {
            request_tokens: 135,
            response_tokens: 136 + 374,
            reasoning_tokens: 374,
            ..Usage::default()
        }
    );
    assert!(
        matches!(&response.parts[0], Part::Thinking(t) if t.content.starts_with("**Identifying the African City**"))
    );

    let received = signatures_in(&body);
    assert_eq!(received.len(), 1);
    let history = vec![
        Message::user(prompt),
        response.clone(),
        answer(&response, r#"{"temperature": 31, "unit": "C"}"#),
    ];
    let ours = build_body(&ModelRequest {
        messages: history.into(),
        ..ModelRequest::default()
    });
    let model_parts = &ours["contents"][1]["parts"];
    assert_eq!(model_parts.as_array().unwrap().len(), 2, "{model_parts}");
    assert_eq!(model_parts[0].get("thoughtSignature"), None);
    assert!(
        model_parts[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("To determine which of")
    );
    assert_eq!(
        model_parts[1],
        json!({"functionCall": {"name": "get_weather", "args": {"country": "Egypt", "city": "Cairo", "unit": "C"},
               "id": "svbynqyq"}, "thoughtSignature": received[0]})
    );
    assert_eq!(
        ours["contents"][2],
        json!({"role": "user", "parts": [{"functionResponse": {"name": "get_weather",
               "response": {"result": "{\"temperature\": 31, \"unit\": \"C\"}"}, "id": "svbynqyq"}}]})
    );
}
