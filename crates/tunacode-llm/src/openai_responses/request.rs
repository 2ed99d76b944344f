//! Canonical history → Responses request body. The call is stateless (`store: false`): the whole
//! history goes in `input` every time, and reasoning items travel back with their encrypted content.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::{Map, Value, json};
use tunacode_protocol::{
    Content, ExtraValue, Message, Part, ThinkingPart, ToolCallPart, content_to_text,
};

use crate::client::ModelRequest;

/// What a retry prompt tells the model after the error text (as pydantic-ai phrased it).
const RETRY_SUFFIX: &str = "\n\nFix the errors and try again.";

/// The `provider` value this client stores in a thinking part's `provider_details`, so that only its
/// own reasoning items are sent back.
pub const PROVIDER_TAG: &str = "openai-responses";

/// Builds the JSON body of a streaming Responses request (as a tree, for inspection): the bytes
/// [`ResponsesBody::to_bytes`] makes, as the client would send them, with the request's cache.
pub fn build_body(request: &ModelRequest) -> Value {
    serde_json::from_slice(&ResponsesBody(request).to_bytes()).unwrap_or(Value::Null)
}

/// The body of a streaming Responses request. `input` is the last field, and the next call of the
/// same history continues this body (`body.rs`), so a late call of a long task serializes only what
/// is new.
#[derive(Debug, Clone, Copy)]
pub struct ResponsesBody<'a>(pub &'a ModelRequest);

/// The wire a kept body was written for (the message cache keeps one body at a time).
pub(super) const WIRE: &str = "openai-responses";

/// Every field of the body but `input` (written after them, last).
pub(super) struct ResponsesHead<'a>(pub(super) &'a ModelRequest);

impl Serialize for ResponsesHead<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let request = self.0;
        let mut body = serializer.serialize_map(None)?;
        body.serialize_entry("model", &request.model)?;
        if !request.system.is_empty() {
            body.serialize_entry("instructions", &request.system)?;
        }
        if !request.tools.is_empty() {
            let tools: Vec<Value> = request
                .tools
                .iter()
                .map(|t| {
                    json!({"type": "function", "name": t.name, "description": t.description,
                           "parameters": t.parameters, "strict": false})
                })
                .collect();
            body.serialize_entry("tools", &tools)?;
        }
        body.serialize_entry("stream", &true)?;
        body.serialize_entry("store", &false)?;
        if let Some(key) = &request.cache_key {
            body.serialize_entry("prompt_cache_key", key)?;
        }
        // Encrypted reasoning is what lets a stateless (`store: false`) conversation keep its
        // reasoning; models that do not reason reject the field, so it is asked for only where
        // reasoning happens.
        if request.reasoning.is_some() || is_reasoning_model(&request.model) {
            body.serialize_entry("include", &["reasoning.encrypted_content"])?;
        }
        if let Some(max) = request.max_output_tokens {
            body.serialize_entry("max_output_tokens", &max)?;
        }
        if let Some(t) = request.temperature {
            body.serialize_entry("temperature", &t)?;
        }
        if let Some(effort) = &request.reasoning {
            body.serialize_entry("reasoning", &json!({"effort": effort, "summary": "auto"}))?;
        }
        body.end()
    }
}

/// The input items one canonical message becomes.
pub(super) fn items_of(message: &Message) -> Vec<Value> {
    let mut items = Vec::new();
    if message.is_request() {
        push_request(&mut items, message);
    } else {
        push_response(&mut items, message);
    }
    items
}

/// OpenAI model families that reason (`gpt-5*`, `o1`/`o3`/`o4*`, `*codex*`).
pub fn is_reasoning_model(model: &str) -> bool {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    name.starts_with("gpt-5")
        || ["o1", "o3", "o4"]
            .iter()
            .any(|p| name == *p || name.starts_with(&format!("{p}-")))
        || name.contains("codex")
}

fn push_request(out: &mut Vec<Value>, message: &Message) {
    for part in &message.parts {
        match part {
            // System prompts travel in `instructions`, never inside history.
            Part::SystemPrompt(_) => {}
            Part::UserPrompt(p) => {
                out.push(json!({"role": "user", "content": user_content(&p.content)}))
            }
            Part::ToolReturn(p) => out.push(json!({"type": "function_call_output",
                "call_id": p.tool_call_id, "output": tool_output(&p.content)})),
            Part::RetryPrompt(p) => {
                let text = format!("{}{RETRY_SUFFIX}", content_to_text(&p.content));
                match &p.tool_call_id {
                    Some(id) => out.push(
                        json!({"type": "function_call_output", "call_id": id, "output": text}),
                    ),
                    None => out.push(json!({"role": "user", "content": text})),
                }
            }
            Part::Text(t) => out.push(json!({"role": "user", "content": t.content})),
            Part::Thinking(_) | Part::ToolCall(_) | Part::Other(_) => {}
        }
    }
}

/// A function call's output: its text, or `input_text` and `input_image` items when the tool returned
/// images.
fn tool_output(content: &Content) -> Value {
    let images = tunacode_protocol::images_in(content);
    if images.is_empty() {
        return json!(content_to_text(content));
    }
    let text = tunacode_protocol::text_without_images(content);
    let mut items = vec![json!({"type": "input_text", "text": text})];
    items.extend(
        images
            .iter()
            .map(|i| json!({"type": "input_image", "image_url": i.data_url()})),
    );
    Value::Array(items)
}

/// A user prompt's content: a string as it is; a list of items as `input_text` (and `input_image` for
/// image URLs) parts.
fn user_content(content: &Content) -> Value {
    let Some(Value::Array(items)) = content.as_value() else {
        return json!(content_to_text(content));
    };
    let parts: Vec<Value> = items
        .iter()
        .map(|item| {
            if let Some(image) = tunacode_protocol::as_image(item) {
                return json!({"type": "input_image", "image_url": image.data_url()});
            }
            let kind = item.get("kind").and_then(Value::as_str);
            match (kind, item.get("url").and_then(Value::as_str)) {
                (Some("image-url"), Some(url)) => json!({"type": "input_image", "image_url": url}),
                _ => json!({"type": "input_text", "text": content_to_text(item)}),
            }
        })
        .collect();
    Value::Array(parts)
}

fn push_response(out: &mut Vec<Value>, message: &Message) {
    for part in &message.parts {
        match part {
            Part::Thinking(t) => out.extend(reasoning_item(t)),
            Part::Text(t) if !t.content.is_empty() => out.push(json!({
                "type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": t.content}]})),
            Part::ToolCall(c) => out.push(function_call_item(c)),
            _ => {}
        }
    }
}

/// A reasoning item produced by this client, sent back byte-exact. Reasoning from other providers,
/// and items without encrypted content (which a stateless call cannot resolve by id), are dropped.
fn reasoning_item(part: &ThinkingPart) -> Option<Value> {
    let details = part.extra.get("provider_details")?.as_json()?;
    if details.get("provider").and_then(Value::as_str) != Some(PROVIDER_TAG) {
        return None;
    }
    let id = details.get("id").and_then(Value::as_str)?;
    let encrypted = part.signature.as_deref().filter(|s| !s.is_empty())?;
    let summary = if part.content.is_empty() {
        json!([])
    } else {
        json!([{"type": "summary_text", "text": part.content}])
    };
    Some(json!({"type": "reasoning", "id": id, "summary": summary, "encrypted_content": encrypted}))
}

fn function_call_item(call: &ToolCallPart) -> Value {
    let arguments = match call.args.json() {
        "null" => "{}".to_string(),
        _ => call.args.as_text().into_owned(),
    };
    let mut item = Map::new();
    item.insert("type".into(), json!("function_call"));
    let item_id = call
        .extra
        .get("provider_details")
        .and_then(ExtraValue::as_json)
        .and_then(|d| d.get("item_id"))
        .and_then(Value::as_str);
    if let Some(id) = item_id {
        item.insert("id".into(), json!(id));
    }
    item.insert("call_id".into(), json!(call.tool_call_id));
    item.insert("name".into(), json!(call.tool_name));
    item.insert("arguments".into(), json!(arguments));
    Value::Object(item)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use tunacode_protocol::ToolSpec;

    fn own_thinking(text: &str, id: &str, encrypted: Option<&str>) -> Part {
        let mut part = ThinkingPart {
            content: text.into(),
            signature: encrypted.map(str::to_string),
            extra: Default::default(),
        };
        part.extra.insert(
            "provider_details".into(),
            json!({"provider": PROVIDER_TAG, "id": id}),
        );
        Part::Thinking(part)
    }

    fn call_with_item(id: &str, name: &str, args: Value, item: &str) -> Part {
        let Part::ToolCall(mut call) = Part::tool_call(id, name, args) else {
            unreachable!()
        };
        call.extra
            .insert("provider_details".into(), json!({"item_id": item}));
        Part::ToolCall(call)
    }

    #[test]
    fn history_maps_to_input_items_in_part_order() {
        let request = ModelRequest {
            cache: None,
            cache_key: None,
            model: "gpt-test".into(),
            system: "be brief".into(),
            messages: vec![
                Message::request(vec![Part::system_prompt("old"), Part::user_prompt("list")]),
                Message::response(vec![
                    own_thinking("plan", "rs_1", Some("ENC=")),
                    Part::thinking("from another provider", Some("sig".into())),
                    own_thinking("", "rs_2", None),
                    Part::text("Looking."),
                    call_with_item("c1", "list_dir", json!({"directory": "."}), "fc_1"),
                    Part::tool_call("c2", "read_file", json!("{\"file_path\":\"a\"}")),
                ]),
                Message::request(vec![
                    Part::tool_return("c1", "list_dir", "a\nb"),
                    Part::retry_prompt("c2", "read_file", "no such file"),
                ]),
                Message::response(vec![own_thinking("", "rs_3", Some("E3"))]),
                Message::from_value(json!({"thought": "legacy"})).unwrap(),
                Message::request(vec![Part::UserPrompt(tunacode_protocol::UserPromptPart {
                    content: json!(["look", {"kind": "image-url", "url": "http://x/i.png"}]).into(),
                    extra: Default::default(),
                })]),
            ]
            .into(),
            tools: vec![ToolSpec {
                name: "list_dir".into(),
                description: "lists".into(),
                parameters: json!({"type": "object", "properties": {}}),
            }]
            .into(),
            max_output_tokens: Some(100),
            temperature: None,
            reasoning: Some("low".into()),
            nudge: None,
        };
        assert_eq!(
            build_body(&request),
            json!({
                "model": "gpt-test",
                "instructions": "be brief",
                "input": [
                    {"role": "user", "content": "list"},
                    {"type": "reasoning", "id": "rs_1",
                     "summary": [{"type": "summary_text", "text": "plan"}], "encrypted_content": "ENC="},
                    {"type": "message", "role": "assistant",
                     "content": [{"type": "output_text", "text": "Looking."}]},
                    {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "list_dir",
                     "arguments": "{\"directory\":\".\"}"},
                    {"type": "function_call", "call_id": "c2", "name": "read_file",
                     "arguments": "{\"file_path\":\"a\"}"},
                    {"type": "function_call_output", "call_id": "c1", "output": "a\nb"},
                    {"type": "function_call_output", "call_id": "c2",
                     "output": "no such file\n\nFix the errors and try again."},
                    {"type": "reasoning", "id": "rs_3", "summary": [], "encrypted_content": "E3"},
                    {"role": "user", "content": [
                        {"type": "input_text", "text": "look"},
                        {"type": "input_image", "image_url": "http://x/i.png"}]}
                ],
                "tools": [{"type": "function", "name": "list_dir", "description": "lists",
                           "parameters": {"type": "object", "properties": {}}, "strict": false}],
                "stream": true,
                "store": false,
                "include": ["reasoning.encrypted_content"],
                "max_output_tokens": 100,
                "reasoning": {"effort": "low", "summary": "auto"}
            })
        );
    }

    #[test]
    fn minimal_request_omits_optional_fields() {
        let request = ModelRequest {
            model: "m".into(),
            messages: vec![Message::user("hi")].into(),
            temperature: Some(0.5),
            ..ModelRequest::default()
        };
        assert_eq!(
            build_body(&request),
            json!({"model": "m", "input": [{"role": "user", "content": "hi"}], "stream": true,
                   "store": false, "temperature": 0.5})
        );
        let gpt5 = ModelRequest {
            model: "gpt-5-mini".into(),
            ..request
        };
        assert_eq!(
            build_body(&gpt5)["include"],
            json!(["reasoning.encrypted_content"])
        );
    }

    #[test]
    fn reasoning_families_are_recognised() {
        for m in [
            "gpt-5",
            "gpt-5-mini",
            "o3",
            "o4-mini",
            "gpt-5-codex",
            "openai/o1",
        ] {
            assert!(is_reasoning_model(m), "{m}");
        }
        for m in ["gpt-4.1", "gpt-4o-mini", "omni", "o", "davinci"] {
            assert!(!is_reasoning_model(m), "{m}");
        }
    }

    #[test]
    fn the_session_goes_as_the_prompt_cache_key_when_set() {
        let mut request = ModelRequest {
            model: "gpt-test".into(),
            messages: vec![tunacode_protocol::Message::user("hi")].into(),
            ..ModelRequest::default()
        };
        let body = build_body(&request);
        assert!(body.get("prompt_cache_key").is_none());
        request.cache_key = Some("session-1".into());
        let body = build_body(&request);
        assert_eq!(body["prompt_cache_key"], serde_json::json!("session-1"));
    }
}
