//! Canonical history → Anthropic Messages request body.
//!
//! Anthropic wants strictly alternating `user`/`assistant` messages made of content blocks, so
//! consecutive canonical messages of the same side are merged into one message. Tool answers travel as
//! `tool_result` blocks at the front of the next user message. Thinking blocks are sent back byte-exact,
//! but only when Anthropic produced them (their part carries `provider_details.provider ==
//! "anthropic"`); reasoning from other providers cannot be verified by Anthropic and is dropped.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::{Value, json};
use tunacode_protocol::{Content, Message, Part, ThinkingPart, ToolCallPart, content_to_text};

use crate::client::ModelRequest;
use crate::wire_history::{Item, MessageItems, Turn, join_note, nudge_of, turns};

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

/// Builds the JSON body of a streaming Messages request (as a tree, for inspection): the bytes
/// [`AnthropicBody::to_bytes`] makes, as the client would send them, with the request's cache.
pub fn build_body(request: &ModelRequest) -> Value {
    serde_json::from_slice(&AnthropicBody(request).to_bytes()).unwrap_or(Value::Null)
}

/// The body of a streaming Messages request. `messages` is the last field, and the next call of the
/// same history continues this body after the turns before its cache breakpoints (`body.rs`), so a
/// late call of a long task serializes only its last few turns.
#[derive(Debug, Clone, Copy)]
pub struct AnthropicBody<'a>(pub &'a ModelRequest);

/// The wire a kept body was written for (the message cache keeps one body at a time).
pub(super) const WIRE: &str = "anthropic";

/// Every field of the body but `messages` (written after them, last).
pub(super) struct AnthropicHead<'a>(pub(super) &'a ModelRequest);

impl Serialize for AnthropicHead<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let request = self.0;
        let budget = request.reasoning.as_deref().and_then(thinking_budget);
        let mut max_tokens = request.max_output_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
        if let Some(budget) = budget
            && max_tokens <= budget
        {
            // Anthropic counts thinking inside `max_tokens` and rejects a budget that does not fit.
            max_tokens = budget + ANSWER_HEADROOM;
        }
        let mut body = serializer.serialize_map(None)?;
        body.serialize_entry("model", &request.model)?;
        body.serialize_entry("max_tokens", &max_tokens)?;
        if !request.system.is_empty() {
            let system =
                json!([{"type": "text", "text": request.system, "cache_control": ephemeral()}]);
            body.serialize_entry("system", &system)?;
        }
        body.serialize_entry("stream", &true)?;
        if !request.tools.is_empty() {
            let mut tools: Vec<Value> = request
                .tools
                .iter()
                .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
                .collect();
            if let Some(Value::Object(last)) = tools.last_mut() {
                last.insert("cache_control".into(), ephemeral());
            }
            body.serialize_entry("tools", &tools)?;
        }
        match budget {
            // Extended thinking does not accept a changed temperature.
            Some(budget) => body.serialize_entry(
                "thinking",
                &json!({"type": "enabled", "budget_tokens": budget}),
            )?,
            None => {
                if let Some(t) = request.temperature {
                    body.serialize_entry("temperature", &t)?;
                }
            }
        }
        body.end()
    }
}

/// The `messages` array's turns: one per run of same-side canonical messages, tool results first in
/// a user turn, the call's note last, and the cache breakpoints of the last two user turns; with how
/// many turns come before the breakpoints (no later call changes those).
pub(super) fn wire_turns<'a>(
    request: &ModelRequest,
    kept: &'a [MessageItems],
) -> Result<(Vec<Turn<'a>>, usize), serde_json::Error> {
    let mut turns = turns(kept);
    for turn in turns.iter_mut().filter(|t| t.request) {
        // Tool results must open the user message that follows the tool calls. The blocks are
        // this module's own JSON, which writes `type` first.
        turn.items
            .sort_by_key(|b| !b.text().starts_with(r#"{"type":"tool_result""#));
    }
    let note = nudge_of(request).and_then(text_block);
    let nudged = note.is_some();
    if let Some(note) = note {
        join_note(
            &mut turns,
            Item::Made(serde_json::value::to_raw_value(&note)?),
        );
    }
    let keep = mark_recent_turns(&mut turns, nudged)?;
    Ok((turns, keep))
}

/// The cache breakpoints of the history: the last block of each of the last two user turns (the
/// latest turn is written to the cache, the one before it is read from it). With the system prompt
/// and the tools that makes four, Anthropic's limit. A `nudged` newest turn ends with the call's note,
/// which the next call will not repeat: its breakpoint goes on the block before the note, so what it
/// writes to the cache is what the next call reads. Only the two marked blocks are parsed again.
/// Returns how many turns come before the marked ones and the last turn.
fn mark_recent_turns(turns: &mut [Turn<'_>], nudged: bool) -> Result<usize, serde_json::Error> {
    let users: Vec<usize> = (0..turns.len())
        .rev()
        .filter(|&i| turns[i].request)
        .take(2)
        .collect();
    for (n, &i) in users.iter().enumerate() {
        let turn = &mut turns[i];
        let skip = usize::from(n == 0 && nudged);
        let Some(at) = turn.items.len().checked_sub(1 + skip) else {
            continue;
        };
        turn.items[at] = turn.items[at].with_entry("cache_control", ephemeral())?;
    }
    let last = turns.len().saturating_sub(1);
    Ok(users.last().map_or(last, |&first| first.min(last)))
}

fn ephemeral() -> Value {
    json!({"type": "ephemeral"})
}

/// The content blocks one canonical message becomes.
pub(super) fn blocks_of(message: &Message) -> Vec<Value> {
    if message.is_request() {
        request_blocks(message)
    } else {
        response_blocks(message)
    }
}

fn text_block(text: &str) -> Option<Value> {
    // Anthropic rejects empty and whitespace-only text blocks.
    (!text.trim().is_empty()).then(|| json!({"type": "text", "text": text}))
}

/// A tool result's content: its text, or text and image blocks when the tool returned images.
fn tool_result_content(content: &Content) -> Value {
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
                match p.content.as_value() {
                    Some(Value::Array(items)) => blocks.extend(items.iter().filter_map(|item| {
                        match tunacode_protocol::as_image(item) {
                            Some(i) => Some(json!({"type": "image", "source": {
                            "type": "base64", "media_type": i.media_type, "data": i.data}})),
                            None => text_block(&content_to_text(item)),
                        }
                    })),
                    _ => blocks.extend(text_block(&p.content.text())),
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
    let details = part.extra.get("provider_details")?.as_json()?;
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
    let input = Value::Object(call.args.object().unwrap_or_default());
    json!({"type": "tool_use", "id": call.tool_call_id, "name": call.tool_name, "input": input})
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
