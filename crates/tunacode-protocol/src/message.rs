//! Conversation messages: `{"kind": "request"|"response", "parts": [...]}` (seed 001), plus the legacy
//! `{"content": …}` and `{"thought": …}` dicts of old session files, which load and are written back as
//! they were.

use serde::de::{Error as _, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::Arc;

use serde_json::Value;

use crate::extra::Extra;
use crate::field_name::FieldKey;
use crate::media::content_to_text;
use crate::part::{Part, ToolCallPart};

/// The key marking a message a compaction replaced (`"compacted": true` beside `kind` and `parts`).
pub const COMPACTED_KEY: &str = "compacted";

/// Which side of the conversation a message is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageKind {
    /// Sent to the model: user prompts, tool returns, retry prompts.
    Request,
    /// Produced by the model: text, thinking, tool calls.
    Response,
}

/// One message of the conversation, shared: cloning a message counts a reference, and changing one
/// (through `DerefMut`) first copies it when something else still holds it (copy on write). A run's
/// history and the session it came from so share every message they have in common, and copying a
/// history of 10,000 messages copies 10,000 pointers.
#[derive(Clone)]
pub struct Message(Arc<Shared>);

/// A message's body with what was worked out from it once (forgotten when it changes).
#[derive(Clone)]
struct Shared {
    body: MessageBody,
    /// Its estimated tokens ([`Message::estimated_tokens`]).
    tokens: Estimate,
}

/// A message's estimated tokens once worked out. An atomic with a mark for "not yet" rather than a
/// `OnceLock`: 8 bytes instead of 16, which with the rest puts a message in an allocation of 80
/// bytes instead of 112. Two threads asking at once may both work it out, to the same number.
struct Estimate(std::sync::atomic::AtomicU64);

impl Estimate {
    const UNKNOWN: u64 = u64::MAX;

    fn unknown() -> Self {
        Estimate(std::sync::atomic::AtomicU64::new(Self::UNKNOWN))
    }

    fn get_or(&self, work_out: impl FnOnce() -> u64) -> u64 {
        use std::sync::atomic::Ordering::Relaxed;
        match self.0.load(Relaxed) {
            Self::UNKNOWN => {
                let tokens = work_out();
                self.0.store(tokens, Relaxed);
                tokens
            }
            tokens => tokens,
        }
    }
}

impl Clone for Estimate {
    fn clone(&self) -> Self {
        Estimate(std::sync::atomic::AtomicU64::new(
            self.0.load(std::sync::atomic::Ordering::Relaxed),
        ))
    }
}

/// What a [`Message`] holds. `parts` is the single source of truth.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageBody {
    /// Request or response.
    pub kind: MessageKind,
    /// The parts, in order.
    pub parts: Vec<Part>,
    /// Fields kept as loaded (timestamps, model name, provider ids, …).
    pub extra: Extra,
    /// For a legacy dict, the dict as loaded: it is written back unchanged and never sent to a model
    /// (boxed: almost no message is one).
    pub legacy: Option<Box<Value>>,
}

impl std::ops::Deref for Message {
    type Target = MessageBody;

    fn deref(&self) -> &MessageBody {
        &self.0.body
    }
}

impl std::ops::DerefMut for Message {
    /// The message to change: copied first when it is shared, so no other holder sees the change.
    /// What was worked out from it is forgotten (it may change now).
    fn deref_mut(&mut self) -> &mut MessageBody {
        let shared = Arc::make_mut(&mut self.0);
        shared.tokens = Estimate::unknown();
        &mut shared.body
    }
}

impl From<MessageBody> for Message {
    fn from(body: MessageBody) -> Self {
        Message(Arc::new(Shared {
            body,
            tokens: Estimate::unknown(),
        }))
    }
}

impl PartialEq for Message {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.body == other.0.body
    }
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Message")
            .field("kind", &self.kind)
            .field("parts", &self.parts)
            .field("extra", &self.extra)
            .field("legacy", &self.legacy)
            .finish()
    }
}

#[derive(Deserialize)]
struct CanonicalShape {
    kind: MessageKind,
    parts: Vec<Part>,
    #[serde(flatten)]
    extra: Extra,
}

/// The same shape, written from a borrowed message (saving a session copies none of it).
#[derive(Serialize)]
struct CanonicalShapeRef<'a> {
    kind: MessageKind,
    parts: &'a [Part],
    #[serde(flatten)]
    extra: &'a Extra,
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(legacy) = &self.legacy {
            return legacy.serialize(serializer);
        }
        let shape = CanonicalShapeRef {
            kind: self.kind,
            parts: &self.parts,
            extra: &self.extra,
        };
        shape.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MessageVisitor)
    }
}

/// Reads a message in one pass: a canonical message's parts straight from the input (a long session
/// loads without building each message as a JSON tree first); anything else as [`Message::from_value`]
/// reads it.
struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Message;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a message (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
        let (mut kind, mut parts) = (None::<Value>, None::<Vec<Part>>);
        // Collected, then deduplicated once (a hostile message of many fields stays linear).
        let mut extra = Vec::new();
        while let Some(FieldKey(key)) = map.next_key::<FieldKey>()? {
            match key.as_ref() {
                "kind" => kind = Some(map.next_value()?),
                "parts" => {
                    let mut read: Vec<Part> = map.next_value()?;
                    // A vector grows to room for 4 parts (800 bytes); most messages hold one or two.
                    read.shrink_to_fit();
                    parts = Some(read);
                }
                _ => extra.push((key, map.next_value()?)),
            }
        }
        let mut extra: Extra = extra.into_iter().collect();
        match (kind, parts) {
            (Some(kind), Some(parts)) => {
                let kind = MessageKind::deserialize(kind)
                    .map_err(|e| A::Error::custom(format!("invalid message: {e}")))?;
                Ok(MessageBody {
                    kind,
                    parts,
                    extra,
                    legacy: None,
                }
                .into())
            }
            (None, None) => {
                Message::from_value(Value::Object(extra.into_map())).map_err(A::Error::custom)
            }
            (kind, parts) => {
                // Half a canonical message: read as before, for the same error.
                if let Some(kind) = kind {
                    extra.insert("kind".into(), kind);
                }
                if let Some(parts) = parts {
                    let parts = serde_json::to_value(parts).map_err(A::Error::custom)?;
                    extra.insert("parts".into(), parts);
                }
                Message::from_value(Value::Object(extra.into_map())).map_err(A::Error::custom)
            }
        }
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Message, E> {
        Message::from_value(Value::Null).map_err(E::custom)
    }
}

impl Message {
    /// Reads a message from JSON, accepting the canonical shape and the legacy dicts.
    pub fn from_value(value: Value) -> Result<Self, String> {
        let obj = value
            .as_object()
            .ok_or_else(|| format!("a message must be a JSON object, got {value}"))?;
        if obj.contains_key("kind") || obj.contains_key("parts") {
            let shape: CanonicalShape =
                serde_json::from_value(value).map_err(|e| format!("invalid message: {e}"))?;
            return Ok(MessageBody {
                kind: shape.kind,
                parts: shape.parts,
                extra: shape.extra,
                legacy: None,
            }
            .into());
        }
        if let Some(thought) = obj.get("thought") {
            let text = content_to_text(thought);
            return Ok(MessageBody {
                kind: MessageKind::Response,
                parts: vec![Part::thinking(text, None)],
                extra: Extra::new(),
                legacy: Some(Box::new(value)),
            }
            .into());
        }
        if let Some(content) = obj.get("content") {
            let is_assistant = obj.get("role").and_then(Value::as_str) == Some("assistant");
            let text = content_to_text(content);
            let (kind, part) = if is_assistant {
                (MessageKind::Response, Part::text(text))
            } else {
                (MessageKind::Request, Part::user_prompt(text))
            };
            return Ok(MessageBody {
                kind,
                parts: vec![part],
                extra: Extra::new(),
                legacy: Some(Box::new(value)),
            }
            .into());
        }
        Err(format!(
            "unrecognised message: expected `kind`/`parts`, `content` or `thought`, got keys {:?}",
            obj.keys().collect::<Vec<_>>()
        ))
    }

    /// A request with the given parts.
    pub fn request(parts: Vec<Part>) -> Self {
        MessageBody {
            kind: MessageKind::Request,
            parts,
            extra: Extra::new(),
            legacy: None,
        }
        .into()
    }

    /// A response with the given parts.
    pub fn response(parts: Vec<Part>) -> Self {
        MessageBody {
            kind: MessageKind::Response,
            parts,
            extra: Extra::new(),
            legacy: None,
        }
        .into()
    }

    /// What the message holds, to take apart (copied when something else still shares it).
    pub fn into_body(self) -> MessageBody {
        Arc::unwrap_or_clone(self.0).body
    }

    /// The message's estimated tokens, worked out by `estimate` the first time and kept with the
    /// message until it changes (shared by every holder: a long session is estimated once per
    /// process, not on every count). The engine has one estimate; a count by any other measure
    /// (a tokenizer) must not go through here.
    pub fn estimated_tokens(&self, estimate: impl FnOnce(&Message) -> u64) -> u64 {
        self.0.tokens.get_or(|| estimate(self))
    }

    /// A request holding one user prompt.
    pub fn user(text: impl Into<String>) -> Self {
        Message::request(vec![Part::user_prompt(text)])
    }

    /// Whether this is a request.
    pub fn is_request(&self) -> bool {
        self.kind == MessageKind::Request
    }

    /// Whether this is a response.
    pub fn is_response(&self) -> bool {
        self.kind == MessageKind::Response
    }

    /// Whether this message is a legacy dict (kept as loaded, never sent to a model).
    pub fn is_legacy(&self) -> bool {
        self.legacy.is_some()
    }

    /// Whether the model sees this message: not a legacy dict, not compacted away. Messages outside the
    /// conversation are kept as they are and looked through by history preparation.
    pub fn in_conversation(&self) -> bool {
        self.legacy.is_none() && !self.is_compacted()
    }

    /// Whether a compaction replaced this message with its summary (it stays in the session, marked).
    pub fn is_compacted(&self) -> bool {
        // Checked for every message of every request: skip the lookup when there is nothing to find.
        !self.extra.is_empty()
            && self
                .extra
                .get(COMPACTED_KEY)
                .is_some_and(|v| *v == Value::Bool(true))
    }

    /// Marks this message as replaced by a compaction summary.
    pub fn mark_compacted(&mut self) {
        self.extra.insert(COMPACTED_KEY.into(), Value::Bool(true));
    }

    /// The tool call parts of this message, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCallPart> {
        self.parts.iter().filter_map(|p| match p {
            Part::ToolCall(c) => Some(c),
            _ => None,
        })
    }

    /// The concatenated text parts (what the user sees of a response).
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Text(t) => Some(t.content.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("")
    }

    /// A response with no non-blank text and no tool call (seed 000 §1.2 "empty").
    pub fn is_empty_response(&self) -> bool {
        self.is_response()
            && !self.parts.iter().any(|p| match p {
                Part::Text(t) => !t.content.trim().is_empty(),
                Part::ToolCall(_) | Part::Other(_) => true,
                _ => false,
            })
    }
}

#[cfg(test)]
#[path = "message_tests.rs"]
mod tests;
