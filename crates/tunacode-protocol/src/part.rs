//! Message parts, serialized with seed 001's `part_kind` tags. Fields this crate does not model
//! (timestamps, provider ids, …) are kept in `extra` so a loaded history is written back unchanged, and a
//! part of an unknown kind is kept whole as [`Part::Other`].

use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use compact_str::CompactString;

use crate::content::Content;
use crate::extra::Extra;
use crate::tool_args::ToolArgs;

// Rendering content as text is about the images in it, so it lives with them.
pub use crate::media::{content_text, content_to_text};

/// A system prompt part. Never persisted in history (it is stripped before a run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemPromptPart {
    /// The prompt text.
    pub content: String,
    /// Fields kept as loaded.
    #[serde(flatten)]
    pub extra: Extra,
}

/// What the user typed (a string, or a list of content items for multimodal prompts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserPromptPart {
    /// The prompt: a string in the usual case.
    pub content: Content,
    /// Fields kept as loaded.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Plain assistant text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextPart {
    /// The text.
    pub content: String,
    /// Fields kept as loaded.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Model reasoning ("thought"). Opaque provider fields (signatures, ids) are kept byte-exact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThinkingPart {
    /// The visible reasoning text (may be empty when only a signature was sent).
    pub content: String,
    /// Provider signature that must be sent back unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Fields kept as loaded.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A structured tool call from the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallPart {
    /// Pairs this call with its return; required.
    pub tool_call_id: String,
    /// The tool's name (kept inline: no allocation for a name of up to 24 bytes).
    pub tool_name: CompactString,
    /// Arguments: a JSON object, or a JSON string holding one (as providers send it).
    #[serde(default)]
    pub args: ToolArgs,
    /// Fields kept as loaded.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The result of a tool call, sent back to the model in the next request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolReturnPart {
    /// The id of the call this answers; required.
    pub tool_call_id: String,
    /// The tool's name (kept inline: no allocation for a name of up to 24 bytes).
    #[serde(default)]
    pub tool_name: CompactString,
    /// The result: a string in the usual case.
    pub content: Content,
    /// Fields kept as loaded.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Asks the model to try again: an error it can fix (bad arguments, a missing file, …). When it carries a
/// `tool_call_id` it is the answer to that call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetryPromptPart {
    /// What went wrong (a string, or pydantic-style error list in old files).
    pub content: Content,
    /// The tool that failed, if any (kept inline up to 24 bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<CompactString>,
    /// The call this answers, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Fields kept as loaded.
    #[serde(flatten)]
    pub extra: Extra,
}

/// One part of a [`crate::Message`]. Order of parts inside a message is meaningful and preserved.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// `system-prompt`
    SystemPrompt(SystemPromptPart),
    /// `user-prompt`
    UserPrompt(UserPromptPart),
    /// `text`
    Text(TextPart),
    /// `thinking`
    Thinking(ThinkingPart),
    /// `tool-call`
    ToolCall(ToolCallPart),
    /// `tool-return`
    ToolReturn(ToolReturnPart),
    /// `retry-prompt`
    RetryPrompt(RetryPromptPart),
    /// A part kind this version does not know, kept whole so it is written back unchanged.
    Other(Box<Value>),
}

/// The serde shape of the known parts (internally tagged by `part_kind`), written from a borrowed part
/// (saving a session copies none of its parts). Reading is in `part_read.rs`.
#[derive(Serialize)]
#[serde(tag = "part_kind")]
enum KnownPartRef<'a> {
    #[serde(rename = "system-prompt")]
    SystemPrompt(&'a SystemPromptPart),
    #[serde(rename = "user-prompt")]
    UserPrompt(&'a UserPromptPart),
    #[serde(rename = "text")]
    Text(&'a TextPart),
    #[serde(rename = "thinking")]
    Thinking(&'a ThinkingPart),
    #[serde(rename = "tool-call")]
    ToolCall(&'a ToolCallPart),
    #[serde(rename = "tool-return")]
    ToolReturn(&'a ToolReturnPart),
    #[serde(rename = "retry-prompt")]
    RetryPrompt(&'a RetryPromptPart),
}

impl Serialize for Part {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let known = match self {
            Part::Other(value) => return value.serialize(serializer),
            Part::SystemPrompt(p) => KnownPartRef::SystemPrompt(p),
            Part::UserPrompt(p) => KnownPartRef::UserPrompt(p),
            Part::Text(p) => KnownPartRef::Text(p),
            Part::Thinking(p) => KnownPartRef::Thinking(p),
            Part::ToolCall(p) => KnownPartRef::ToolCall(p),
            Part::ToolReturn(p) => KnownPartRef::ToolReturn(p),
            Part::RetryPrompt(p) => KnownPartRef::RetryPrompt(p),
        };
        known.serialize(serializer)
    }
}

impl Part {
    /// A user prompt part holding plain text.
    pub fn user_prompt(text: impl Into<String>) -> Self {
        Part::UserPrompt(UserPromptPart {
            content: Content::Text(text.into()),
            extra: Extra::new(),
        })
    }

    /// A system prompt part.
    pub fn system_prompt(text: impl Into<String>) -> Self {
        Part::SystemPrompt(SystemPromptPart {
            content: text.into(),
            extra: Extra::new(),
        })
    }

    /// An assistant text part.
    pub fn text(text: impl Into<String>) -> Self {
        Part::Text(TextPart {
            content: text.into(),
            extra: Extra::new(),
        })
    }

    /// A thinking part with an optional signature.
    pub fn thinking(text: impl Into<String>, signature: Option<String>) -> Self {
        Part::Thinking(ThinkingPart {
            content: text.into(),
            signature,
            extra: Extra::new(),
        })
    }

    /// A tool call part.
    pub fn tool_call(id: impl Into<String>, name: impl Into<CompactString>, args: Value) -> Self {
        Part::ToolCall(ToolCallPart {
            tool_call_id: id.into(),
            tool_name: name.into(),
            args: ToolArgs::from_value(&args),
            extra: Extra::new(),
        })
    }

    /// A tool return part with text content.
    pub fn tool_return(
        id: impl Into<String>,
        name: impl Into<CompactString>,
        content: impl Into<String>,
    ) -> Self {
        Part::ToolReturn(ToolReturnPart {
            tool_call_id: id.into(),
            tool_name: name.into(),
            content: Content::Text(content.into()),
            extra: Extra::new(),
        })
    }

    /// A retry prompt answering a tool call.
    pub fn retry_prompt(
        id: impl Into<String>,
        name: impl Into<CompactString>,
        content: impl Into<String>,
    ) -> Self {
        Part::RetryPrompt(RetryPromptPart {
            content: Content::Text(content.into()),
            tool_name: Some(name.into()),
            tool_call_id: Some(id.into()),
            extra: Extra::new(),
        })
    }

    /// The `part_kind` tag of this part.
    pub fn part_kind(&self) -> &str {
        match self {
            Part::SystemPrompt(_) => "system-prompt",
            Part::UserPrompt(_) => "user-prompt",
            Part::Text(_) => "text",
            Part::Thinking(_) => "thinking",
            Part::ToolCall(_) => "tool-call",
            Part::ToolReturn(_) => "tool-return",
            Part::RetryPrompt(_) => "retry-prompt",
            Part::Other(v) => v.get("part_kind").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The tool call id this part carries (calls, returns, and retry prompts that answer a call).
    pub fn tool_call_id(&self) -> Option<&str> {
        match self {
            Part::ToolCall(p) => Some(&p.tool_call_id),
            Part::ToolReturn(p) => Some(&p.tool_call_id),
            Part::RetryPrompt(p) => p.tool_call_id.as_deref(),
            _ => None,
        }
    }

    /// Whether this part answers a tool call (a tool return, or a retry prompt tied to a call).
    pub fn is_tool_answer(&self) -> bool {
        matches!(self, Part::ToolReturn(_))
            || matches!(self, Part::RetryPrompt(p) if p.tool_call_id.is_some())
    }
}

impl ToolCallPart {
    /// The arguments as a JSON object. A JSON string is parsed; an empty string or null is `{}`.
    pub fn args_object(&self) -> Result<Map<String, Value>, String> {
        self.args.object()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn known_parts_round_trip_with_extra_fields_in_order() {
        let input = json!({"part_kind": "tool-call", "tool_call_id": "tc_1", "tool_name": "bash",
                           "args": {"command": "ls"}, "timestamp": "2026-01-01T00:00:00Z", "id": null});
        let part: Part = serde_json::from_value(input.clone()).unwrap();
        match &part {
            Part::ToolCall(p) => {
                assert_eq!(p.tool_call_id, "tc_1");
                assert_eq!(p.extra.len(), 2);
                assert!(!p.extra.contains_key("part_kind"));
            }
            other => panic!("wrong part {other:?}"),
        }
        assert_eq!(serde_json::to_string(&part).unwrap(), input.to_string());
    }

    #[test]
    fn unknown_part_kind_is_kept_whole() {
        let input =
            json!({"part_kind": "builtin-tool-call", "tool_name": "web_search", "args": {}});
        let part: Part = serde_json::from_value(input.clone()).unwrap();
        assert!(matches!(part, Part::Other(_)));
        assert_eq!(serde_json::to_value(&part).unwrap(), input);
    }

    #[test]
    fn tool_call_requires_its_id() {
        let input = json!({"part_kind": "tool-call", "tool_name": "bash", "args": {}});
        let err = serde_json::from_value::<Part>(input).unwrap_err();
        assert!(err.to_string().contains("tool_call_id"), "{err}");
        let input = json!({"part_kind": "tool-return", "tool_name": "bash", "content": "x"});
        assert!(serde_json::from_value::<Part>(input).is_err());
    }
}
