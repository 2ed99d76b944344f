//! Images a tool returned (a tool return whose content lists its text and then images) in each wire
//! format: Anthropic and Responses in the tool result itself, Gemini as inline data after the function
//! response, Chat Completions in a user message after the tool messages for OpenAI and OpenRouter
//! only; everywhere the text names the image instead of carrying its data. Also: Chat bodies built
//! with the engine's message cache.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use serde_json::{Value, json};
use tunacode_llm::ModelRequest;
use tunacode_llm::openai_chat::ChatDialect;
use tunacode_protocol::{Message, Part, ToolReturnPart, image_item};

fn request() -> ModelRequest {
    let answer = Part::ToolReturn(ToolReturnPart {
        tool_call_id: "c1".into(),
        tool_name: "mcp__s__shot".into(),
        content: json!(["a screenshot", image_item("image/png", "iVBORw0KGgo=")]).into(),
        extra: Default::default(),
    });
    ModelRequest {
        model: "m".into(),
        messages: Arc::new(vec![
            Message::request(vec![Part::user_prompt("take a screenshot")]),
            Message::response(vec![Part::tool_call("c1", "mcp__s__shot", json!({}))]),
            Message::request(vec![answer]),
        ]),
        ..ModelRequest::default()
    }
}

fn find<'a>(value: &'a Value, pred: &dyn Fn(&Value) -> bool) -> Option<&'a Value> {
    if pred(value) {
        return Some(value);
    }
    match value {
        Value::Array(items) => items.iter().find_map(|v| find(v, pred)),
        Value::Object(map) => map.values().find_map(|v| find(v, pred)),
        _ => None,
    }
}

#[test]
fn anthropic_puts_the_image_in_the_tool_result() {
    let body = tunacode_llm::anthropic::build_body(&request());
    let result = find(&body, &|v| v["type"] == "tool_result").unwrap();
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "a screenshot"},
               {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}])
    );
}

#[test]
fn responses_puts_the_image_in_the_function_output() {
    let body = tunacode_llm::openai_responses::build_body(&request());
    let output = find(&body, &|v| v["type"] == "function_call_output").unwrap();
    assert_eq!(
        output["output"],
        json!([{"type": "input_text", "text": "a screenshot"},
               {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}])
    );
}

#[test]
fn gemini_follows_the_function_response_with_inline_data() {
    let body = tunacode_llm::gemini::build_body(&request());
    let turn = find(&body, &|v| {
        v["parts"]
            .as_array()
            .is_some_and(|p| p.iter().any(|x| x.get("functionResponse").is_some()))
    })
    .unwrap();
    let parts = turn["parts"].as_array().unwrap();
    assert_eq!(
        parts[0]["functionResponse"]["response"]["result"],
        "a screenshot\n[image: image/png]"
    );
    assert_eq!(
        parts[1],
        json!({"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}})
    );
}

#[test]
fn chat_completions_sends_images_only_where_the_provider_takes_them() {
    let with = tunacode_llm::openai_chat::build_body(
        &request(),
        ChatDialect {
            openrouter: false,
            images: true,
        },
    );
    let messages = with["messages"].as_array().unwrap();
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool["content"], "a screenshot\n[image: image/png]");
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "user");
    assert_eq!(
        last["content"][1]["image_url"]["url"],
        "data:image/png;base64,iVBORw0KGgo="
    );

    let without = tunacode_llm::openai_chat::build_body(&request(), ChatDialect::default());
    assert!(!without.to_string().contains("iVBORw0KGgo="), "{without}");
    assert_eq!(
        without["messages"].as_array().unwrap().last().unwrap()["role"],
        "tool"
    );
}

#[test]
fn chat_bodies_with_a_message_cache_equal_bodies_without_and_reuse_what_is_cached() {
    let cache = Arc::new(tunacode_llm::MessageCache::new());
    let plain = request();
    let cached = ModelRequest {
        cache: Some(cache.clone()),
        ..request()
    };
    let dialect = ChatDialect::default();
    let expected = tunacode_llm::openai_chat::build_body(&plain, dialect);
    assert_eq!(
        tunacode_llm::openai_chat::build_body(&cached, dialect),
        expected
    );
    assert_eq!(
        tunacode_llm::openai_chat::build_body(&cached, dialect),
        expected,
        "from the cache"
    );

    // A message changed in place is served from the cache until the engine says it changed.
    let mut changed = (*cached.messages).clone();
    changed[0] = Message::request(vec![Part::user_prompt("take two screenshots")]);
    let changed = ModelRequest {
        messages: Arc::new(changed),
        ..cached.clone()
    };
    let stale = tunacode_llm::openai_chat::build_body(&changed, dialect).to_string();
    assert!(
        stale.contains("take a screenshot"),
        "the cached form was reused"
    );
    cache.invalidate_from(0);
    let fresh = tunacode_llm::openai_chat::build_body(&changed, dialect).to_string();
    assert!(fresh.contains("take two screenshots"), "{fresh}");
}
