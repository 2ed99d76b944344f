//! Canonical history → Anthropic Messages request body.
//!
//! Anthropic wants strictly alternating `user`/`assistant` messages made of content blocks, so
//! consecutive canonical messages of the same side are merged into one message. Tool answers travel as
//! `tool_result` blocks at the front of the next user message. Thinking blocks are sent back byte-exact,
//! but only when Anthropic produced them (their part carries `provider_details.provider ==
//! "anthropic"`); reasoning from other providers cannot be verified by Anthropic and is dropped.

use serde_json::{Map, Value, json};
use tunacode_protocol::{Message, Part, ThinkingPart, ToolCallPart, content_to_text};

use crate::client::ModelRequest;

/// `max_tokens` when the request sets none (Anthropic requires the field).
pub const DEFAULT_MAX_TOKENS: u32 = 16_384;

/// What a retry prompt tells the model after the error text (as pydantic-ai phrased it).
const RETRY_SUFFIX: &str = "\n\nFix the errors and try again.";

/// Output tokens left for the visible answer when a thinking budget would not fit in `max_tokens`.
const ANSWER_HEADROOM: u32 = 4_096;

/// The provider tag stored in `provider_details` of parts Anthropic produced.
pub(crate) const PROVIDER: &str = "anthropic";

/// The thinking budget for a reasoning effort (`low`, `medium`, `high`); `None` for anything else.
pub fn thinking_budget(effort: &str) -> Option<u32> {
    match effort.trim().to_ascii_lowercase().as_str() {
        "low" => Some(2_048),
        "medium" => Some(8_192),
        "high" => Some(24_576),
        _ => None,
    }
}

/// Builds the JSON body of a streaming Messages request.
pub fn build_body(request: &ModelRequest) -> Value {
    let budget = request.reasoning.as_deref().and_then(thinking_budget);
    let mut max_tokens = request.max_output_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    if let Some(budget) = budget
        && max_tokens <= budget
    {
        // Anthropic counts thinking inside `max_tokens` and rejects a budget that does not fit.
        max_tokens = budget + ANSWER_HEADROOM;
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert("max_tokens".into(), json!(max_tokens));
    if !request.system.is_empty() {
        body.insert(
            "system".into(),
            json!([{"type": "text", "text": request.system, "cache_control": ephemeral()}]),
        );
    }
    let mut messages = build_messages(request);
    // The note joins only a history that ends with a request (`ModelRequest::history`).
    let nudged = request.nudge.is_some()
        && request
            .messages
            .last()
            .is_some_and(tunacode_protocol::Message::is_request);
    mark_recent_turns(&mut messages, nudged);
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(true));
    if !request.tools.is_empty() {
        let mut tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
            .collect();
        if let Some(Value::Object(last)) = tools.last_mut() {
            last.insert("cache_control".into(), ephemeral());
        }
        body.insert("tools".into(), Value::Array(tools));
    }
    match budget {
        Some(budget) => {
            // Extended thinking does not accept a changed temperature.
            body.insert(
                "thinking".into(),
                json!({"type": "enabled", "budget_tokens": budget}),
            );
        }
        None => {
            if let Some(t) = request.temperature {
                body.insert("temperature".into(), json!(t));
            }
        }
    }
    Value::Object(body)
}

/// The cache breakpoints of the history: the last block of each of the last two user turns (the
/// latest turn is written to the cache, the one before it is read from it). With the system prompt
/// and the tools that makes four, Anthropic's limit. A `nudged` newest turn ends with the call's note,
/// which the next call will not repeat: its breakpoint goes on the block before the note, so what it
/// writes to the cache is what the next call reads.
fn mark_recent_turns(messages: &mut [Value], nudged: bool) {
    let users: Vec<usize> = (0..messages.len())
        .filter(|&i| messages[i]["role"] == "user")
        .collect();
    for (n, &i) in users.iter().rev().take(2).enumerate() {
        let Some(blocks) = messages[i]["content"].as_array_mut() else {
            continue;
        };
        let skip = usize::from(n == 0 && nudged);
        let Some(at) = blocks.len().checked_sub(1 + skip) else {
            continue;
        };
        if let Value::Object(block) = &mut blocks[at] {
            block.insert("cache_control".into(), ephemeral());
        }
    }
}

fn ephemeral() -> Value {
    json!({"type": "ephemeral"})
}

/// The `messages` array: one entry per run of same-side canonical messages.
fn build_messages(request: &ModelRequest) -> Vec<Value> {
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let history: Vec<_> = request.history().collect();
    for message in history
        .iter()
        .map(|m| m.as_ref())
        .filter(|m| m.in_conversation())
    {
        let (role, blocks) = if message.is_request() {
            ("user", request_blocks(message))
        } else {
            ("assistant", response_blocks(message))
        };
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((last_role, content)) if *last_role == role => content.extend(blocks),
            _ => out.push((role, blocks)),
        }
    }
    out.into_iter()
        .map(|(role, mut content)| {
            if role == "user" {
                // Tool results must open the user message that follows the tool calls.
                content.sort_by_key(|b| b["type"] != "tool_result");
            }
            json!({"role": role, "content": content})
        })
        .collect()
}

fn text_block(text: &str) -> Option<Value> {
    // Anthropic rejects empty and whitespace-only text blocks.
    (!text.trim().is_empty()).then(|| json!({"type": "text", "text": text}))
}

/// A tool result's content: its text, or text and image blocks when the tool returned images.
fn tool_result_content(content: &Value) -> Value {
    let images = tunacode_protocol::images_in(content);
    if images.is_empty() {
        return json!(content_to_text(content));
    }
    let mut blocks: Vec<Value> = text_block(&tunacode_protocol::text_without_images(content))
        .into_iter()
        .collect();
    blocks.extend(images.iter().map(|i| {
        json!({"type": "image", "source": {"type": "base64", "media_type": i.media_type, "data": i.data}})
    }));
    Value::Array(blocks)
}

fn request_blocks(message: &Message) -> Vec<Value> {
    let mut blocks = Vec::new();
    for part in &message.parts {
        match part {
            // System prompts travel in `ModelRequest::system`, never inside history.
            Part::SystemPrompt(_) => {}
            Part::UserPrompt(p) => {
                match &p.content {
                    Value::Array(items) => blocks.extend(items.iter().filter_map(|item| {
                        match tunacode_protocol::as_image(item) {
                            Some(i) => Some(json!({"type": "image", "source": {
                            "type": "base64", "media_type": i.media_type, "data": i.data}})),
                            None => text_block(&content_to_text(item)),
                        }
                    })),
                    other => blocks.extend(text_block(&content_to_text(other))),
                }
            }
            Part::ToolReturn(p) => blocks.push(json!({
                "type": "tool_result",
                "tool_use_id": p.tool_call_id,
                "content": tool_result_content(&p.content),
            })),
            Part::RetryPrompt(p) => {
                let text = format!("{}{RETRY_SUFFIX}", content_to_text(&p.content));
                match &p.tool_call_id {
                    Some(id) => blocks.push(json!({
                        "type": "tool_result",
                        "tool_use_id": id,
                        "content": text,
                        "is_error": true,
                    })),
                    None => blocks.extend(text_block(&text)),
                }
            }
            Part::Text(t) => blocks.extend(text_block(&t.content)),
            Part::Thinking(_) | Part::ToolCall(_) | Part::Other(_) => {}
        }
    }
    blocks
}

fn response_blocks(message: &Message) -> Vec<Value> {
    let mut blocks = Vec::new();
    for part in &message.parts {
        match part {
            Part::Thinking(t) => blocks.extend(thinking_block(t)),
            Part::Text(t) => blocks.extend(text_block(&t.content)),
            Part::ToolCall(c) => blocks.push(tool_use_block(c)),
            Part::SystemPrompt(_)
            | Part::UserPrompt(_)
            | Part::ToolReturn(_)
            | Part::RetryPrompt(_)
            | Part::Other(_) => {}
        }
    }
    blocks
}

/// A thinking part Anthropic produced, as it was sent: `redacted_thinking` with its data, or
/// `thinking` with its signature. Anything else (another provider's reasoning, a block cut before
/// its signature arrived) cannot be verified by Anthropic and is left out.
fn thinking_block(part: &ThinkingPart) -> Option<Value> {
    let details = part.extra.get("provider_details")?;
    if details.get("provider").and_then(Value::as_str) != Some(PROVIDER) {
        return None;
    }
    if let Some(data) = details.get("redacted_data").and_then(Value::as_str) {
        return Some(json!({"type": "redacted_thinking", "data": data}));
    }
    let signature = part.signature.as_deref().filter(|s| !s.is_empty())?;
    Some(json!({"type": "thinking", "thinking": part.content, "signature": signature}))
}

/// A tool call as a `tool_use` block; `input` must be an object (a JSON string is parsed, anything
/// unreadable becomes `{}`).
fn tool_use_block(call: &ToolCallPart) -> Value {
    let input = match &call.args {
        Value::Object(map) => Value::Object(map.clone()),
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(map)) => Value::Object(map),
            _ => json!({}),
        },
        _ => json!({}),
    };
    json!({"type": "tool_use", "id": call.tool_call_id, "name": call.tool_name, "input": input})
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body without its cache breakpoints (checked on their own below), as a string system.
    fn without_cache_marks(body: Value) -> Value {
        let mut body = tunacode_testkit::without_key(&body, "cache_control");
        if let Some(text) = body["system"][0]["text"].as_str().map(str::to_string) {
            body["system"] = json!(text);
        }
        body
    }

    #[test]
    fn four_cache_breakpoints_cover_system_tools_and_the_last_two_user_turns() {
        let request = ModelRequest {
            model: "claude-test".into(),
            system: "sys".into(),
            messages: vec![
                Message::user("one"),
                Message::response(vec![Part::tool_call("c1", "read_file", json!({}))]),
                Message::request(vec![Part::tool_return("c1", "read_file", "A")]),
                Message::response(vec![Part::tool_call("c2", "read_file", json!({}))]),
                Message::request(vec![Part::tool_return("c2", "read_file", "B")]),
            ]
            .into(),
            tools: vec![
                ToolSpec {
                    name: "a".into(),
                    description: "a".into(),
                    parameters: json!({"type": "object"}),
                },
                ToolSpec {
                    name: "b".into(),
                    description: "b".into(),
                    parameters: json!({"type": "object"}),
                },
            ],
            ..ModelRequest::default()
        };
        let body = build_body(&request);
        let marks = body.to_string().matches("cache_control").count();
        assert_eq!(marks, 4, "{body}");
        let ephemeral = json!({"type": "ephemeral"});
        assert_eq!(body["system"][0]["cache_control"], ephemeral);
        assert!(body["tools"][0].get("cache_control").is_none());
        assert_eq!(body["tools"][1]["cache_control"], ephemeral);
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages[4]["content"][0]["cache_control"], ephemeral);
        // With the call's note on the newest turn, its breakpoint sits on the block before the
        // note: what this call writes to the cache is what the next one (without the note) reads.
        let nudged = build_body(&ModelRequest {
            nudge: Some("# Current todos".into()),
            ..request.clone()
        });
        let newest = nudged["messages"][4]["content"].as_array().unwrap();
        assert_eq!(newest.len(), 2, "{nudged}");
        assert_eq!(newest[0]["cache_control"], ephemeral);
        assert!(newest[1].get("cache_control").is_none(), "{nudged}");
        assert_eq!(nudged.to_string().matches("cache_control").count(), 4);
        assert_eq!(messages[2]["content"][0]["cache_control"], ephemeral);
        assert!(messages[0]["content"][0].get("cache_control").is_none());
    }
    use pretty_assertions::assert_eq;
    use tunacode_protocol::ToolSpec;

    fn anthropic_thinking(text: &str, sig: &str) -> Part {
        let mut part = ThinkingPart {
            content: text.into(),
            signature: Some(sig.into()),
            extra: Map::new(),
        };
        part.extra
            .insert("provider_details".into(), json!({"provider": "anthropic"}));
        Part::Thinking(part)
    }

    #[test]
    fn history_maps_to_alternating_messages_with_paired_tool_results() {
        let mut redacted = ThinkingPart {
            content: String::new(),
            signature: None,
            extra: Map::new(),
        };
        redacted.extra.insert(
            "provider_details".into(),
            json!({"provider": "anthropic", "redacted_data": "EqQBCg=="}),
        );
        let request = ModelRequest {
            cache: None,
            cache_key: None,
            model: "claude-test".into(),
            system: "be brief".into(),
            messages: vec![
                Message::request(vec![Part::system_prompt("old"), Part::user_prompt("list")]),
                Message::response(vec![
                    Part::thinking("openai reasoning", Some("enc".into())),
                    anthropic_thinking("hm", "sig/+="),
                    Part::Thinking(redacted),
                    Part::text(""),
                    Part::text("Looking."),
                    Part::tool_call("c1", "list_dir", json!({"directory": "."})),
                    Part::tool_call("c2", "read_file", json!("{\"file_path\":\"a\"}")),
                    Part::tool_call("c3", "glob", json!("{broken")),
                ]),
                Message::request(vec![
                    Part::tool_return("c1", "list_dir", "a\nb"),
                    Part::retry_prompt("c2", "read_file", "no such file"),
                ]),
                Message::request(vec![
                    Part::user_prompt("also this"),
                    Part::tool_return("c3", "glob", "x.rs"),
                ]),
                Message::from_value(json!({"thought": "legacy"})).unwrap(),
                Message::response(vec![Part::thinking("only foreign", None)]),
                Message::user("next"),
            ]
            .into(),
            tools: vec![ToolSpec {
                name: "list_dir".into(),
                description: "lists".into(),
                parameters: json!({"type": "object", "properties": {}}),
            }],
            max_output_tokens: None,
            temperature: Some(0.2),
            reasoning: None,
            nudge: None,
        };
        let body = without_cache_marks(build_body(&request));
        assert_eq!(
            body,
            json!({
                "model": "claude-test",
                "max_tokens": 16384,
                "system": "be brief",
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "list"}]},
                    {"role": "assistant", "content": [
                        {"type": "thinking", "thinking": "hm", "signature": "sig/+="},
                        {"type": "redacted_thinking", "data": "EqQBCg=="},
                        {"type": "text", "text": "Looking."},
                        {"type": "tool_use", "id": "c1", "name": "list_dir", "input": {"directory": "."}},
                        {"type": "tool_use", "id": "c2", "name": "read_file", "input": {"file_path": "a"}},
                        {"type": "tool_use", "id": "c3", "name": "glob", "input": {}}
                    ]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "c1", "content": "a\nb"},
                        {"type": "tool_result", "tool_use_id": "c2",
                         "content": "no such file\n\nFix the errors and try again.", "is_error": true},
                        {"type": "tool_result", "tool_use_id": "c3", "content": "x.rs"},
                        {"type": "text", "text": "also this"},
                        {"type": "text", "text": "next"}
                    ]}
                ],
                "stream": true,
                "tools": [{"name": "list_dir", "description": "lists",
                           "input_schema": {"type": "object", "properties": {}}}],
                "temperature": 0.2f32
            })
        );
    }

    #[test]
    fn reasoning_effort_enables_thinking_with_room_for_the_answer() {
        let mut request = ModelRequest {
            model: "m".into(),
            messages: vec![Message::user("hi")].into(),
            temperature: Some(0.5),
            reasoning: Some("low".into()),
            ..Default::default()
        };
        let body = build_body(&request);
        assert_eq!(
            body["thinking"],
            json!({"type": "enabled", "budget_tokens": 2048})
        );
        assert_eq!(body["max_tokens"], json!(16384));
        assert!(body.get("temperature").is_none());
        assert!(body.get("system").is_none() && body.get("tools").is_none());

        request.reasoning = Some("High".into());
        let body = build_body(&request);
        assert_eq!(body["thinking"]["budget_tokens"], json!(24576));
        assert_eq!(body["max_tokens"], json!(24576 + 4096));

        request.reasoning = Some("medium".into());
        request.max_output_tokens = Some(1000);
        let body = build_body(&request);
        assert_eq!(body["thinking"]["budget_tokens"], json!(8192));
        assert_eq!(body["max_tokens"], json!(8192 + 4096));

        request.reasoning = Some("none".into());
        let body = build_body(&request);
        assert!(body.get("thinking").is_none());
        assert_eq!(body["max_tokens"], json!(1000));
        assert_eq!(body["temperature"], json!(0.5f32));
    }

    #[test]
    fn unsigned_or_foreign_thinking_is_dropped_and_retry_without_id_is_user_text() {
        let mut unsigned = anthropic_thinking("cut short", "");
        if let Part::Thinking(t) = &mut unsigned {
            t.signature = None;
        }
        let request = ModelRequest {
            model: "m".into(),
            messages: vec![
                Message::user("a"),
                Message::response(vec![unsigned, Part::text("answer")]),
                Message::request(vec![Part::RetryPrompt(
                    tunacode_protocol::RetryPromptPart {
                        content: json!("say it again"),
                        tool_name: None,
                        tool_call_id: None,
                        extra: Map::new(),
                    },
                )]),
            ]
            .into(),
            ..Default::default()
        };
        assert_eq!(
            without_cache_marks(build_body(&request))["messages"],
            json!([
                {"role": "user", "content": [{"type": "text", "text": "a"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "answer"}]},
                {"role": "user", "content": [
                    {"type": "text", "text": "say it again\n\nFix the errors and try again."}
                ]}
            ])
        );
    }
}
