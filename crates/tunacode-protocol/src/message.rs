//! Conversation messages: `{"kind": "request"|"response", "parts": [...]}` (seed 001), plus the legacy
//! `{"content": …}` and `{"thought": …}` dicts of old session files, which load and are written back as
//! they were.

use serde::de::{Error as _, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

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

/// One message of the conversation. `parts` is the single source of truth.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Request or response.
    pub kind: MessageKind,
    /// The parts, in order.
    pub parts: Vec<Part>,
    /// Fields kept as loaded (timestamps, model name, provider ids, …).
    pub extra: Map<String, Value>,
    /// For a legacy dict, the dict as loaded: it is written back unchanged and never sent to a model.
    pub legacy: Option<Value>,
}

#[derive(Deserialize)]
struct CanonicalShape {
    kind: MessageKind,
    parts: Vec<Part>,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

/// The same shape, written from a borrowed message (saving a session copies none of it).
#[derive(Serialize)]
struct CanonicalShapeRef<'a> {
    kind: MessageKind,
    parts: &'a [Part],
    #[serde(flatten)]
    extra: &'a Map<String, Value>,
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
        let mut extra = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "kind" => kind = Some(map.next_value()?),
                "parts" => parts = Some(map.next_value()?),
                _ => {
                    extra.insert(key, map.next_value()?);
                }
            }
        }
        match (kind, parts) {
            (Some(kind), Some(parts)) => {
                let kind = MessageKind::deserialize(kind)
                    .map_err(|e| A::Error::custom(format!("invalid message: {e}")))?;
                Ok(Message {
                    kind,
                    parts,
                    extra,
                    legacy: None,
                })
            }
            (None, None) => Message::from_value(Value::Object(extra)).map_err(A::Error::custom),
            (kind, parts) => {
                // Half a canonical message: read as before, for the same error.
                if let Some(kind) = kind {
                    extra.insert("kind".into(), kind);
                }
                if let Some(parts) = parts {
                    let parts = serde_json::to_value(parts).map_err(A::Error::custom)?;
                    extra.insert("parts".into(), parts);
                }
                Message::from_value(Value::Object(extra)).map_err(A::Error::custom)
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
            return Ok(Message {
                kind: shape.kind,
                parts: shape.parts,
                extra: shape.extra,
                legacy: None,
            });
        }
        if let Some(thought) = obj.get("thought") {
            let text = content_to_text(thought);
            return Ok(Message {
                kind: MessageKind::Response,
                parts: vec![Part::thinking(text, None)],
                extra: Map::new(),
                legacy: Some(value),
            });
        }
        if let Some(content) = obj.get("content") {
            let is_assistant = obj.get("role").and_then(Value::as_str) == Some("assistant");
            let text = content_to_text(content);
            let (kind, part) = if is_assistant {
                (MessageKind::Response, Part::text(text))
            } else {
                (MessageKind::Request, Part::user_prompt(text))
            };
            return Ok(Message {
                kind,
                parts: vec![part],
                extra: Map::new(),
                legacy: Some(value),
            });
        }
        Err(format!(
            "unrecognised message: expected `kind`/`parts`, `content` or `thought`, got keys {:?}",
            obj.keys().collect::<Vec<_>>()
        ))
    }

    /// A request with the given parts.
    pub fn request(parts: Vec<Part>) -> Self {
        Message {
            kind: MessageKind::Request,
            parts,
            extra: Map::new(),
            legacy: None,
        }
    }

    /// A response with the given parts.
    pub fn response(parts: Vec<Part>) -> Self {
        Message {
            kind: MessageKind::Response,
            parts,
            extra: Map::new(),
            legacy: None,
        }
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
        !self.extra.is_empty() && self.extra.get(COMPACTED_KEY) == Some(&Value::Bool(true))
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
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn seed_wire_format_round_trips_byte_for_byte() {
        let text = r#"[{"kind":"request","parts":[{"part_kind":"user-prompt","content":"list files","timestamp":"2026-01-31T21:25:27Z"}]},{"kind":"response","parts":[{"part_kind":"text","content":"..."},{"part_kind":"tool-call","tool_call_id":"tc_1","tool_name":"bash","args":{"command":"ls"}}],"model_name":"gpt-4.1"},{"kind":"request","parts":[{"part_kind":"tool-return","tool_call_id":"tc_1","tool_name":"bash","content":"..."}]}]"#;
        let messages: Vec<Message> = serde_json::from_str(text).unwrap();
        assert_eq!(messages.len(), 3);
        assert_eq!(
            messages[1].tool_calls().next().unwrap().tool_call_id,
            "tc_1"
        );
        assert_eq!(messages[2].parts[0].tool_call_id(), Some("tc_1"));
        assert_eq!(serde_json::to_string(&messages).unwrap(), text);
    }

    #[test]
    fn legacy_dicts_load_and_are_written_back_unchanged() {
        let input =
            json!([{"content": "hello there", "role": "user"}, {"thought": "I should look"}]);
        let messages: Vec<Message> = serde_json::from_value(input.clone()).unwrap();
        assert!(messages[0].is_request() && messages[0].is_legacy());
        assert_eq!(messages[0].parts, vec![Part::user_prompt("hello there")]);
        assert!(messages[1].is_response());
        assert_eq!(
            messages[1].parts,
            vec![Part::thinking("I should look", None)]
        );
        assert_eq!(serde_json::to_value(&messages).unwrap(), input);
    }

    #[test]
    fn unknown_shapes_are_errors_not_silently_dropped() {
        let err = serde_json::from_value::<Message>(json!({"foo": 1})).unwrap_err();
        assert!(err.to_string().contains("unrecognised message"), "{err}");
        assert!(serde_json::from_value::<Message>(json!("text")).is_err());
    }

    #[test]
    fn messages_read_from_text_and_from_a_tree_alike_with_the_same_errors() {
        let canonical = json!({"parts": [{"part_kind": "text", "content": "hi"}],
                               "model_name": "m", "kind": "response"});
        let legacy = json!({"thought": "hm"});
        for value in [canonical, legacy] {
            let from_text: Message = serde_json::from_str(&value.to_string()).unwrap();
            let from_tree: Message = serde_json::from_value(value.clone()).unwrap();
            assert_eq!(from_text, from_tree);
            assert_eq!(serde_json::to_value(&from_text).unwrap(), value);
        }
        for broken in [
            json!({"kind": "response"}),
            json!({"kind": "sideways", "parts": []}),
            json!({"parts": [], "content": "x"}),
        ] {
            let err = serde_json::from_str::<Message>(&broken.to_string()).unwrap_err();
            assert!(
                err.to_string().contains("invalid message"),
                "{broken}: {err}"
            );
        }
        assert!(serde_json::from_str::<Message>("[1]").is_err());
        assert!(serde_json::from_str::<Message>("null").is_err());
    }

    #[test]
    fn empty_response_detection() {
        assert!(Message::response(vec![]).is_empty_response());
        assert!(Message::response(vec![Part::text("  \n")]).is_empty_response());
        assert!(Message::response(vec![Part::thinking("hm", None)]).is_empty_response());
        assert!(!Message::response(vec![Part::text("ok")]).is_empty_response());
        let call = Part::tool_call("a", "bash", json!({}));
        assert!(!Message::response(vec![call]).is_empty_response());
        assert!(!Message::user("").is_empty_response());
    }
}
