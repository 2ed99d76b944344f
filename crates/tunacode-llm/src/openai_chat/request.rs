//! Canonical history → Chat Completions request body.

use std::borrow::Cow;

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde_json::{Value, json};
use tunacode_protocol::{Content, ExtraValue, Message, Part, ToolArgs, content_to_text};

use crate::client::ModelRequest;

/// The wire a kept body was written for (the message cache keeps one body at a time).
pub(super) const WIRE: &str = "openai-chat";

/// What a retry prompt tells the model after the error text (as pydantic-ai phrased it).
const RETRY_SUFFIX: &str = "\n\nFix the errors and try again.";

/// What differs between servers that speak Chat Completions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChatDialect {
    /// OpenRouter: reasoning as `reasoning: {effort}`, and `reasoning_details` sent back on assistant
    /// messages.
    pub openrouter: bool,
    /// Images tools return are sent (in a user message after the tool messages, as Chat Completions
    /// takes no images in tool messages): OpenAI's own API and OpenRouter. Other servers get the
    /// `[image: type]` line only, as many local models take no images.
    pub images: bool,
}

impl ChatDialect {
    /// The dialect of a provider.
    pub fn for_settings(settings: &crate::provider::ProviderSettings) -> Self {
        let openrouter =
            settings.provider == "openrouter" || settings.base_url.contains("openrouter.ai");
        ChatDialect {
            openrouter,
            images: openrouter || settings.base_url.starts_with("https://api.openai.com/"),
        }
    }
}

/// Builds the JSON body of a streaming Chat Completions request (as a tree, for inspection): the bytes
/// [`ChatBody::to_bytes`] makes, as the client would send them, with the request's cache (its last
/// body is continued and this one kept).
pub fn build_body(request: &ModelRequest, dialect: ChatDialect) -> Value {
    let bytes = ChatBody::new(request, dialect).to_bytes();
    serde_json::from_slice(&bytes).unwrap_or(Value::Null)
}

/// The body of a streaming Chat Completions request, written straight from the canonical history
/// with no intermediate JSON tree, and continuing the last call's body when it can (`body.rs`), so a
/// late turn of a long task costs little more than writing its new messages.
#[derive(Debug, Clone, Copy)]
pub struct ChatBody<'a> {
    pub(super) request: &'a ModelRequest,
    pub(super) dialect: ChatDialect,
}

impl<'a> ChatBody<'a> {
    /// The body for `request` in `dialect`.
    pub fn new(request: &'a ModelRequest, dialect: ChatDialect) -> Self {
        ChatBody { request, dialect }
    }
}

/// Every field of the body but `messages` (written after them, last: see `body.rs`).
pub(super) struct ChatHead<'a>(pub(super) ChatBody<'a>);

impl Serialize for ChatHead<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let r = self.0.request;
        let mut body = serializer.serialize_map(None)?;
        body.serialize_entry("model", &r.model)?;
        body.serialize_entry("stream", &true)?;
        body.serialize_entry("stream_options", &json!({"include_usage": true}))?;
        if !r.tools.is_empty() {
            let tools: Vec<ChatTool> = r.tools.iter().map(ChatTool::of).collect();
            body.serialize_entry("tools", &tools)?;
        }
        if let Some(max) = r.max_output_tokens {
            body.serialize_entry("max_tokens", &max)?;
        }
        if let Some(t) = r.temperature {
            body.serialize_entry("temperature", &t)?;
        }
        if let Some(key) = &r.cache_key {
            body.serialize_entry("prompt_cache_key", key)?;
        }
        if let Some(effort) = &r.reasoning {
            if self.0.dialect.openrouter {
                body.serialize_entry("reasoning", &json!({"effort": effort}))?;
            } else {
                body.serialize_entry("reasoning_effort", effort)?;
            }
        }
        body.end()
    }
}

#[derive(Serialize)]
struct ChatTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: ChatFunction<'a>,
}

#[derive(Serialize)]
struct ChatFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

impl<'a> ChatTool<'a> {
    fn of(t: &'a tunacode_protocol::ToolSpec) -> Self {
        ChatTool {
            kind: "function",
            function: ChatFunction {
                name: &t.name,
                description: &t.description,
                parameters: &t.parameters,
            },
        }
    }
}

/// What each canonical message becomes in the `messages` array, and where the cache breakpoints go;
/// `body.rs` writes the array.
pub(super) struct ChatMessages<'a>(pub(super) ChatBody<'a>);

impl<'a> ChatMessages<'a> {
    /// For Claude through OpenRouter, which caches only at explicit breakpoints: the last two
    /// requests of the history (the newest turn is written to the cache, the one before it read),
    /// as with Anthropic's own API. Empty for every other model.
    pub(super) fn claude_breakpoints(&self) -> Vec<usize> {
        let r = self.0.request;
        if !(self.0.dialect.openrouter && r.model.starts_with("anthropic/")) {
            return Vec::new();
        }
        (0..r.messages.len())
            .rev()
            .filter(|&i| r.messages[i].is_request() && r.messages[i].in_conversation())
            .take(2)
            .collect()
    }

    /// The Chat messages one canonical message becomes.
    pub(super) fn wire_messages(&self, message: &'a Message) -> Vec<ChatMessage<'a>> {
        if !message.is_request() {
            return response_message(message, self.0.dialect)
                .into_iter()
                .collect();
        }
        let mut out: Vec<ChatMessage<'a>> = message.parts.iter().filter_map(request_part).collect();
        if self.0.dialect.images
            && let Some(images) = returned_images(message)
        {
            out.push(images);
        }
        out
    }
}

/// `messages` with a cache breakpoint on the last content part of the last one (text content becomes
/// one text part, as breakpoints sit on parts).
pub(super) fn with_breakpoint(
    messages: Vec<ChatMessage<'_>>,
) -> Result<Vec<Value>, serde_json::Error> {
    let mut values = messages
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(last) = values.last_mut() {
        let content = last["content"].take();
        let mut parts = match content {
            Value::String(text) => vec![json!({"type": "text", "text": text})],
            Value::Array(parts) => parts,
            other => vec![json!({"type": "text", "text": other.to_string()})],
        };
        if let Some(Value::Object(part)) = parts.last_mut() {
            part.insert("cache_control".into(), json!({"type": "ephemeral"}));
        }
        last["content"] = Value::Array(parts);
    }
    Ok(values)
}

/// One Chat message, borrowing from the history where it can.
#[derive(Serialize)]
pub(super) struct ChatMessage<'a> {
    role: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    content: ChatContent<'a>,
    #[serde(skip_serializing_if = "ChatCalls::is_empty")]
    tool_calls: ChatCalls<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_details: Option<Value>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum ChatContent<'a> {
    Text(Cow<'a, str>),
    Content(&'a Content),
    Owned(Value),
}

/// A response's tool calls, written straight from its parts.
struct ChatCalls<'a>(Option<&'a Message>);

impl ChatCalls<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_none_or(|m| m.tool_calls().next().is_none())
    }
}

impl Serialize for ChatCalls<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for c in self.0.into_iter().flat_map(Message::tool_calls) {
            seq.serialize_element(&ChatCall {
                id: &c.tool_call_id,
                kind: "function",
                function: ChatCallFunction {
                    name: &c.tool_name,
                    arguments: Arguments(&c.args),
                },
            })?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct ChatCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: ChatCallFunction<'a>,
}

#[derive(Serialize)]
struct ChatCallFunction<'a> {
    name: &'a str,
    arguments: Arguments<'a>,
}

/// Call arguments as the JSON text Chat Completions wants: kept as received when they are text,
/// otherwise written compactly straight into the string (no intermediate copy).
struct Arguments<'a>(&'a ToolArgs);

impl Serialize for Arguments<'_> {
    /// `arguments` is a string: a string is written as it is kept, anything else as its JSON text.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0.json() {
            "null" => serializer.serialize_str("{}"),
            text if text.starts_with('"') => self.0.raw().serialize(serializer),
            text => serializer.serialize_str(text),
        }
    }
}

impl<'a> ChatMessage<'a> {
    pub(super) fn text(role: &'static str, text: &'a str) -> Self {
        ChatMessage {
            role,
            tool_call_id: None,
            content: ChatContent::Text(Cow::Borrowed(text)),
            tool_calls: ChatCalls(None),
            reasoning_details: None,
        }
    }

    fn tool(id: &'a str, content: Cow<'a, str>) -> Self {
        ChatMessage {
            tool_call_id: Some(id),
            content: ChatContent::Text(content),
            ..ChatMessage::text("tool", "")
        }
    }
}

/// A user message with the images the request's tool answers carry, if any.
fn returned_images(message: &Message) -> Option<ChatMessage<'static>> {
    let images: Vec<Value> = message
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolReturn(ret) => Some(tunacode_protocol::images_in(&ret.content)),
            _ => None,
        })
        .flatten()
        .map(|i| json!({"type": "image_url", "image_url": {"url": i.data_url()}}))
        .collect();
    if images.is_empty() {
        return None;
    }
    let mut content =
        vec![json!({"type": "text", "text": "The images the tool calls above returned:"})];
    content.extend(images);
    Some(ChatMessage {
        content: ChatContent::Owned(Value::Array(content)),
        ..ChatMessage::text("user", "")
    })
}

/// A user prompt with images as Chat content parts: its text, then an `image_url` part per image
/// (a `data:` URL).
fn user_parts_with_images(content: &Content) -> Value {
    let Some(Value::Array(items)) = content.as_value() else {
        return Value::Array(Vec::new());
    };
    let parts = items
        .iter()
        .map(|item| match tunacode_protocol::as_image(item) {
            Some(image) => json!({"type": "image_url", "image_url": {"url": image.data_url()}}),
            None => json!({"type": "text", "text": content_to_text(item)}),
        })
        .collect();
    Value::Array(parts)
}

/// Tool answers, prompts and retries of a request, each its own Chat message.
fn request_part(part: &Part) -> Option<ChatMessage<'_>> {
    Some(match part {
        // System prompts travel in `ModelRequest::system`, never inside history.
        Part::SystemPrompt(_) | Part::Thinking(_) | Part::ToolCall(_) | Part::Other(_) => {
            return None;
        }
        Part::UserPrompt(p) if !tunacode_protocol::images_in(&p.content).is_empty() => {
            ChatMessage {
                content: ChatContent::Owned(user_parts_with_images(&p.content)),
                ..ChatMessage::text("user", "")
            }
        }
        Part::UserPrompt(p) => ChatMessage {
            content: ChatContent::Content(&p.content),
            ..ChatMessage::text("user", "")
        },
        Part::ToolReturn(p) => ChatMessage::tool(&p.tool_call_id, p.content.text()),
        Part::RetryPrompt(p) => {
            let text = Cow::Owned(format!("{}{RETRY_SUFFIX}", content_to_text(&p.content)));
            match &p.tool_call_id {
                Some(id) => ChatMessage::tool(id, text),
                None => ChatMessage {
                    content: ChatContent::Text(text),
                    ..ChatMessage::text("user", "")
                },
            }
        }
        Part::Text(t) => ChatMessage::text("user", &t.content),
    })
}

/// A response as one assistant message (none when it has neither text nor calls).
fn response_message(message: &Message, dialect: ChatDialect) -> Option<ChatMessage<'_>> {
    let calls = ChatCalls(Some(message));
    let text = response_text(message);
    if text.is_empty() && calls.is_empty() {
        return None;
    }
    Some(ChatMessage {
        // Some servers reject `null` content next to tool calls; an empty string is accepted everywhere.
        content: ChatContent::Text(text),
        tool_calls: calls,
        reasoning_details: dialect
            .openrouter
            .then(|| openrouter_details(message))
            .flatten(),
        ..ChatMessage::text("assistant", "")
    })
}

/// OpenRouter reasoning kept on the message's reasoning parts.
fn openrouter_details(message: &Message) -> Option<Value> {
    let mut all = Vec::new();
    for part in &message.parts {
        if let Part::Thinking(t) = part
            && let Some(details) = t
                .extra
                .get("provider_details")
                .and_then(ExtraValue::as_json)
            && details.get("provider").and_then(Value::as_str) == Some("openrouter")
            && let Some(Value::Array(items)) = details.get("reasoning_details")
        {
            all.extend(items.iter().cloned());
        }
    }
    (!all.is_empty()).then_some(Value::Array(all))
}

/// The text of a response, borrowed when it is one part (the usual case).
fn response_text(message: &Message) -> Cow<'_, str> {
    let mut texts = message.parts.iter().filter_map(|p| match p {
        Part::Text(t) => Some(t.content.as_str()),
        _ => None,
    });
    match (texts.next(), texts.next()) {
        (None, _) => Cow::Borrowed(""),
        (Some(only), None) => Cow::Borrowed(only),
        (Some(_), Some(_)) => Cow::Owned(message.text()),
    }
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
