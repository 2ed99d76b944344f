//! Canonical history → Gemini `streamGenerateContent` request body.
//!
//! Thought signatures received on a part (kept in the part's `extra["provider_details"]
//! ["thought_signature"]`) go back on the same part, byte-exact.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::{Map, Value, json};
use tunacode_protocol::{Extra, ExtraValue, Message, Part, content_to_text};

use crate::client::ModelRequest;
use crate::wire_history::{Item, MessageItems, Turn, join_note, nudge_of, turns};

/// What a retry prompt tells the model after the error text (as pydantic-ai phrased it).
const RETRY_SUFFIX: &str = "\n\nFix the errors and try again.";

/// The documented placeholder for a function call that has no signature of its own (a history from
/// another model or provider); Gemini 3 rejects a step whose first function call carries none.
pub const SKIP_SIGNATURE: &str = "c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I=";

/// JSON-schema keys Gemini's function `parameters` accept (its OpenAPI schema subset); any other key
/// (`additionalProperties`, `$schema`, `$ref`, …) makes the API reject the request.
const SCHEMA_KEYS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "anyOf",
    "propertyOrdering",
    "default",
    "example",
];

/// Builds the JSON body of a streaming `generateContent` request (as a tree, for inspection): the
/// bytes [`GeminiBody::to_bytes`] makes, as the client would send them, with the request's cache.
pub fn build_body(request: &ModelRequest) -> Value {
    serde_json::from_slice(&GeminiBody(request).to_bytes()).unwrap_or(Value::Null)
}

/// The body of a streaming `generateContent` request. `contents` is the last field, and the next
/// call of the same history continues this body (`body.rs`), so a late call of a long task
/// serializes only what is new.
#[derive(Debug, Clone, Copy)]
pub struct GeminiBody<'a>(pub &'a ModelRequest);

/// The wire a kept body was written for (the message cache keeps one body at a time).
pub(super) const WIRE: &str = "gemini";

/// Every field of the body but `contents` (written after them, last).
pub(super) struct GeminiHead<'a>(pub(super) &'a ModelRequest);

impl Serialize for GeminiHead<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let request = self.0;
        let mut body = serializer.serialize_map(None)?;
        if !request.system.is_empty() {
            body.serialize_entry(
                "systemInstruction",
                &json!({"parts": [{"text": request.system}]}),
            )?;
        }
        if !request.tools.is_empty() {
            let tools = json!([{"functionDeclarations": function_declarations(request)}]);
            body.serialize_entry("tools", &tools)?;
        }
        let config = generation_config(request);
        if !config.is_empty() {
            body.serialize_entry("generationConfig", &config)?;
        }
        body.end()
    }
}

/// The conversation as Gemini contents: requests as `user` turns, responses as `model` turns (Gemini
/// wants them to alternate, so consecutive messages of one side join), the call's note last.
pub(super) fn contents<'a>(
    request: &ModelRequest,
    kept: &'a [MessageItems],
) -> Result<Vec<Turn<'a>>, serde_json::Error> {
    let mut turns = turns(kept);
    if let Some(nudge) = nudge_of(request) {
        let note = serde_json::value::to_raw_value(&json!({"text": nudge}))?;
        join_note(&mut turns, Item::Made(note));
    }
    Ok(turns)
}

/// The parts the message at `index` of `request`'s history becomes.
pub(super) fn parts_of(request: &ModelRequest, index: usize, message: &Message) -> Vec<Value> {
    if !message.is_request() {
        return response_parts(message);
    }
    // An answer that does not name its tool takes the name from its call, found in the history
    // before it (only then: answers name their tool as a rule).
    let call_name = |id: &str| {
        request.messages[..index]
            .iter()
            .rev()
            .flat_map(|m| m.tool_calls())
            .find(|c| c.tool_call_id == id)
            .map(|c| c.tool_name.to_string())
            .unwrap_or_default()
    };
    request_parts(message, &call_name)
}

/// The tools as function declarations, their parameters cut to the schema subset Gemini accepts.
fn function_declarations(request: &ModelRequest) -> Vec<Value> {
    request
        .tools
        .iter()
        .map(|t| {
            let mut decl = Map::new();
            decl.insert("name".into(), json!(t.name));
            decl.insert("description".into(), json!(t.description));
            if let Some(params) = tool_parameters(&t.parameters) {
                decl.insert("parameters".into(), params);
            }
            Value::Object(decl)
        })
        .collect()
}

/// The output limit, the temperature and the thinking budget, where the request sets them.
fn generation_config(request: &ModelRequest) -> Map<String, Value> {
    let mut config = Map::new();
    if let Some(max) = request.max_output_tokens {
        config.insert("maxOutputTokens".into(), json!(max));
    }
    if let Some(t) = request.temperature {
        config.insert("temperature".into(), json!(t));
    }
    if let Some(budget) = request.reasoning.as_deref().and_then(thinking_budget) {
        config.insert(
            "thinkingConfig".into(),
            json!({"includeThoughts": true, "thinkingBudget": budget}),
        );
    }
    config
}

/// The thinking budget for a reasoning effort (`None`: thinking left at the model's default).
fn thinking_budget(effort: &str) -> Option<u32> {
    match effort.trim().to_ascii_lowercase().as_str() {
        "none" | "off" | "" => None,
        "minimal" | "low" => Some(1024),
        "high" | "xhigh" | "max" => Some(24576),
        _ => Some(8192),
    }
}

fn request_parts(message: &Message, call_name: &dyn Fn(&str) -> String) -> Vec<Value> {
    let name_of = |name: Option<&str>, id: &str| match name {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => call_name(id),
    };
    let mut parts = Vec::new();
    for part in &message.parts {
        match part {
            // System prompts travel in `systemInstruction`, never inside history.
            Part::SystemPrompt(_) => {}
            Part::UserPrompt(p) => {
                parts.push(json!({"text": tunacode_protocol::text_without_images(&p.content)}));
                parts.extend(
                    tunacode_protocol::images_in(&p.content)
                        .iter()
                        .map(|i| json!({"inlineData": {"mimeType": i.media_type, "data": i.data}})),
                );
            }
            Part::ToolReturn(p) => {
                parts.push(function_response(
                    &name_of(Some(&p.tool_name), &p.tool_call_id),
                    &p.tool_call_id,
                    json!({"result": content_to_text(&p.content)}),
                ));
                // Images a tool returned follow its answer as inline data in the same turn.
                parts.extend(
                    tunacode_protocol::images_in(&p.content)
                        .iter()
                        .map(|i| json!({"inlineData": {"mimeType": i.media_type, "data": i.data}})),
                );
            }
            Part::RetryPrompt(p) => {
                let text = format!("{}{RETRY_SUFFIX}", content_to_text(&p.content));
                match &p.tool_call_id {
                    Some(id) => parts.push(function_response(
                        &name_of(p.tool_name.as_deref(), id),
                        id,
                        json!({"error": text}),
                    )),
                    None => parts.push(json!({"text": text})),
                }
            }
            Part::Text(t) if !t.content.is_empty() => parts.push(json!({"text": t.content})),
            Part::Text(_) | Part::Thinking(_) | Part::ToolCall(_) | Part::Other(_) => {}
        }
    }
    parts
}

fn function_response(name: &str, id: &str, response: Value) -> Value {
    let mut call = Map::new();
    call.insert("name".into(), json!(name));
    call.insert("response".into(), response);
    if !id.is_empty() {
        call.insert("id".into(), json!(id));
    }
    json!({"functionResponse": call})
}

fn response_parts(message: &Message) -> Vec<Value> {
    let mut parts = Vec::new();
    let mut first_call = None;
    let mut any_call_signed = false;
    for part in &message.parts {
        match part {
            Part::Text(t) => {
                let signature = thought_signature(&t.extra);
                // An empty text part matters only when it carries a signature (Gemini sends one at the
                // end of some streams); otherwise the API rejects empty text.
                if t.content.is_empty() && signature.is_none() {
                    continue;
                }
                parts.push(with_signature(json!({"text": t.content}), signature));
            }
            Part::Thinking(t) => {
                // Thought summaries are not sent back; a thought part that carried a signature is,
                // as received, so the signature stays on its own part.
                if let Some(signature) = thought_signature(&t.extra) {
                    parts.push(with_signature(
                        json!({"text": t.content, "thought": true}),
                        Some(signature),
                    ));
                }
            }
            Part::ToolCall(c) => {
                let args = match c.args_object() {
                    Ok(map) => Value::Object(map),
                    // Malformed arguments were answered by a retry prompt; send what was there.
                    Err(_) => json!({"arguments": c.args.as_text()}),
                };
                let mut call = Map::new();
                call.insert("name".into(), json!(c.tool_name));
                call.insert("args".into(), args);
                if !c.tool_call_id.is_empty() {
                    call.insert("id".into(), json!(c.tool_call_id));
                }
                let signature = thought_signature(&c.extra);
                any_call_signed |= signature.is_some();
                first_call.get_or_insert(parts.len());
                parts.push(with_signature(json!({"functionCall": call}), signature));
            }
            Part::UserPrompt(_)
            | Part::SystemPrompt(_)
            | Part::ToolReturn(_)
            | Part::RetryPrompt(_)
            | Part::Other(_) => {}
        }
    }
    if let (Some(pos), false) = (first_call, any_call_signed) {
        parts[pos]["thoughtSignature"] = json!(SKIP_SIGNATURE);
    }
    parts
}

/// The signature a part arrived with, as received.
fn thought_signature(extra: &Extra) -> Option<&str> {
    extra
        .get("provider_details")
        .and_then(ExtraValue::as_json)
        .and_then(|d| d.get("thought_signature"))
        .and_then(Value::as_str)
}

fn with_signature(mut part: Value, signature: Option<&str>) -> Value {
    if let Some(signature) = signature {
        part["thoughtSignature"] = json!(signature);
    }
    part
}

/// A tool's JSON schema as Gemini accepts it, or `None` for a tool without parameters (Gemini
/// rejects an object schema with no properties).
fn tool_parameters(schema: &Value) -> Option<Value> {
    let clean = clean_schema(schema);
    let empty = clean
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    (!(clean.get("type") == Some(&json!("object")) && empty)).then_some(clean)
}

/// Keeps only the schema keys Gemini accepts, recursively. `oneOf` becomes `anyOf`, `const` becomes a
/// one-value `enum`, and a `["T", "null"]` type becomes `T` with `nullable`.
fn clean_schema(schema: &Value) -> Value {
    let Some(obj) = schema.as_object() else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in obj {
        match key.as_str() {
            "properties" => {
                if let Some(props) = value.as_object() {
                    let props: Map<String, Value> = props
                        .iter()
                        .map(|(name, s)| (name.clone(), clean_schema(s)))
                        .collect();
                    if !props.is_empty() {
                        out.insert(key.clone(), Value::Object(props));
                    }
                }
            }
            "items" => {
                out.insert(key.clone(), clean_schema(value));
            }
            "anyOf" | "oneOf" => {
                if let Some(options) = value.as_array() {
                    let options = options.iter().map(clean_schema).collect();
                    out.insert("anyOf".into(), Value::Array(options));
                }
            }
            "const" => {
                out.insert("enum".into(), json!([value]));
            }
            "type" => match value {
                Value::Array(types) => {
                    let mut kinds = types.iter().filter(|t| *t != "null");
                    if let Some(kind) = kinds.next() {
                        out.insert("type".into(), kind.clone());
                    }
                    if types.iter().any(|t| t == "null") {
                        out.insert("nullable".into(), json!(true));
                    }
                }
                other => {
                    out.insert(key.clone(), other.clone());
                }
            },
            k if SCHEMA_KEYS.contains(&k) => {
                out.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
    Value::Object(out)
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
