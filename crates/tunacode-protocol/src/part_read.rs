//! Reading a [`Part`] in one pass over its JSON object. A session of 10,000 messages holds some 15,000
//! parts, and reading each through a `Value` tree and serde's tagged-enum buffering took most of the
//! time of loading it. Here each field is read once: the few names a part uses are matched without
//! allocating, every value is read as it comes, and strings move into the part without a copy.
//!
//! Hand-written because serde's derive cannot read an internally tagged enum whose variants keep their
//! unknown fields (`#[serde(flatten)]`) without buffering the whole object twice.

use serde::Deserialize;
use serde::de::{Deserializer, Error as _, MapAccess, Visitor};
use serde_json::Value;

use crate::ToolArgs;
use crate::field_name::{FieldKey, FieldName, field_name};
use crate::part::{
    Part, RetryPromptPart, SystemPromptPart, TextPart, ThinkingPart, ToolCallPart, ToolReturnPart,
    UserPromptPart,
};

/// A key of a part's object: one of the names the known parts use, or any other.
enum Key {
    PartKind,
    Content,
    ToolCallId,
    ToolName,
    Args,
    Signature,
    Other(FieldName),
}

impl Key {
    fn name(&self) -> &str {
        match self {
            Key::PartKind => "part_kind",
            Key::Content => "content",
            Key::ToolCallId => "tool_call_id",
            Key::ToolName => "tool_name",
            Key::Args => "args",
            Key::Signature => "signature",
            Key::Other(name) => name,
        }
    }

    fn into_name(self) -> FieldName {
        match self {
            Key::Other(name) => name,
            known => field_name(known.name()),
        }
    }
}

impl<'de> Deserialize<'de> for Key {
    /// A part's own names, or any other read as a [`FieldName`] (static when it recurs).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let FieldKey(name) = FieldKey::deserialize(deserializer)?;
        Ok(match name.as_ref() {
            "part_kind" => Key::PartKind,
            "content" => Key::Content,
            "tool_call_id" => Key::ToolCallId,
            "tool_name" => Key::ToolName,
            "args" => Key::Args,
            "signature" => Key::Signature,
            _ => Key::Other(name),
        })
    }
}

/// The fields of one part as read, in their order (a later duplicate wins, as in a JSON tree).
struct Fields(Vec<(Key, Value)>);

impl Fields {
    /// Takes the field `key` out (its last value).
    fn take(&mut self, name: &str) -> Option<Value> {
        let mut found = None;
        self.0.retain_mut(|(key, value)| {
            if key.name() != name {
                return true;
            }
            found = Some(std::mem::take(value));
            false
        });
        found
    }

    /// Takes a field that must be there.
    fn required<E: serde::de::Error>(&mut self, name: &'static str) -> Result<Value, E> {
        self.take(name).ok_or_else(|| E::missing_field(name))
    }

    /// Takes a string field that must be there.
    fn string<E: serde::de::Error>(&mut self, name: &'static str) -> Result<String, E> {
        as_string(name, self.required(name)?)
    }

    /// Takes a string field that may be missing or null.
    fn optional_string<E: serde::de::Error>(
        &mut self,
        name: &'static str,
    ) -> Result<Option<String>, E> {
        match self.take(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => as_string(name, value).map(Some),
        }
    }

    /// Puts `args` (read as text) back in the place of the last `args` field, for a part that is not
    /// a call and keeps it as an ordinary field (the last one wins, as in a JSON tree).
    fn put_back_args(&mut self, args: Option<&ToolArgs>) {
        let last = self
            .0
            .iter_mut()
            .rev()
            .find(|(k, _)| matches!(k, Key::Args));
        if let (Some(args), Some((_, value))) = (args, last) {
            *value = args.to_value();
        }
    }

    /// Every field as a JSON object, read as a tree would be (a repeated name keeps its first place
    /// and its last value).
    fn into_object(self) -> Value {
        let fields = self.0.into_iter();
        Value::Object(
            fields
                .map(|(k, v)| (k.into_name().into_owned(), v))
                .collect(),
        )
    }

    /// What is left: the part's extra fields, in order.
    fn extra<T: FromIterator<(FieldName, Value)>>(self) -> T {
        self.0
            .into_iter()
            .map(|(key, value)| (key.into_name(), value))
            .collect()
    }
}

fn as_string<E: serde::de::Error>(name: &str, value: Value) -> Result<String, E> {
    use serde::de::Unexpected;
    let found = match value {
        Value::String(text) => return Ok(text),
        // What was found is named, not printed (it may be a megabyte of output).
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(b),
        Value::Number(_) => Unexpected::Other("a number"),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    };
    let expected = format!("a string for `{name}`");
    Err(E::invalid_type(found, &expected.as_str()))
}

/// The `part_kind`s of the parts this version models (others are kept whole, as [`Part::Other`]).
const KNOWN_KINDS: [&str; 7] = [
    "system-prompt",
    "user-prompt",
    "text",
    "thinking",
    "tool-call",
    "tool-return",
    "retry-prompt",
];

impl<'de> Deserialize<'de> for Part {
    /// Reads a part from any serde deserializer (text or a JSON tree).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(PartVisitor)
    }
}

struct PartVisitor;

impl<'de> Visitor<'de> for PartVisitor {
    type Value = Part;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a message part (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Part, A::Error> {
        let mut fields = Vec::with_capacity(map.size_hint().unwrap_or(4));
        // A call's arguments are read as text (`ToolArgs`), never as a tree; their place among the
        // fields is kept for a part of another kind, which gets them back as a value.
        let mut args = None;
        while let Some(key) = map.next_key::<Key>()? {
            if matches!(key, Key::Args) {
                args = Some(map.next_value::<ToolArgs>()?);
                fields.push((key, Value::Null));
            } else {
                fields.push((key, map.next_value::<Value>()?));
            }
        }
        let kind = fields
            .iter()
            .rev()
            .find(|(key, _)| matches!(key, Key::PartKind))
            .and_then(|(_, value)| value.as_str())
            .map(str::to_string);
        let Some(kind) = kind else {
            return Err(A::Error::custom("message part has no `part_kind`"));
        };
        build(&kind, Fields(fields), args)
    }
}

/// The part of kind `kind` from its fields.
fn build<E: serde::de::Error>(
    kind: &str,
    mut fields: Fields,
    args: Option<ToolArgs>,
) -> Result<Part, E> {
    if kind != "tool-call" {
        fields.put_back_args(args.as_ref());
    }
    if !KNOWN_KINDS.contains(&kind) {
        return Ok(Part::Other(Box::new(fields.into_object())));
    }
    fields.take("part_kind");
    Ok(match kind {
        "system-prompt" => Part::SystemPrompt(SystemPromptPart {
            content: fields.string("content")?,
            extra: fields.extra(),
        }),
        "user-prompt" => Part::UserPrompt(UserPromptPart {
            content: fields.required("content")?.into(),
            extra: fields.extra(),
        }),
        "text" => Part::Text(TextPart {
            content: fields.string("content")?,
            extra: fields.extra(),
        }),
        "thinking" => Part::Thinking(ThinkingPart {
            content: fields.string("content")?,
            signature: fields.optional_string("signature")?,
            extra: fields.extra(),
        }),
        "tool-call" => Part::ToolCall(ToolCallPart {
            tool_call_id: fields.string("tool_call_id")?,
            tool_name: fields.string("tool_name")?.into(),
            args: {
                fields.take("args");
                args.unwrap_or_default()
            },
            extra: fields.extra(),
        }),
        "tool-return" => Part::ToolReturn(ToolReturnPart {
            tool_call_id: fields.string("tool_call_id")?,
            tool_name: fields
                .take("tool_name")
                .map_or(Ok(String::new()), |v| as_string("tool_name", v))?
                .into(),
            content: fields.required("content")?.into(),
            extra: fields.extra(),
        }),
        _ => Part::RetryPrompt(RetryPromptPart {
            content: fields.required("content")?.into(),
            tool_name: fields.optional_string("tool_name")?.map(Into::into),
            tool_call_id: fields.optional_string("tool_call_id")?,
            extra: fields.extra(),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    /// Reads `value` from its text and from its tree; both must agree (on an error, both must fail and
    /// the error returned holds both messages). A part must be written back as it was read.
    fn read_both(value: &Value) -> Result<Part, String> {
        let from_text = serde_json::from_str::<Part>(&value.to_string()).map_err(|e| e.to_string());
        let from_tree = serde_json::from_value::<Part>(value.clone()).map_err(|e| e.to_string());
        match (from_text, from_tree) {
            (Ok(text), Ok(tree)) => {
                assert_eq!(text, tree, "{value}");
                Ok(text)
            }
            (Err(text), Err(tree)) => Err(format!("{text} | {tree}")),
            (text, tree) => panic!("{value}: read from text {text:?}, from a tree {tree:?}"),
        }
    }

    #[test]
    fn every_known_kind_reads_its_fields_and_keeps_the_rest_in_order() {
        let parts = [
            json!({"part_kind": "system-prompt", "content": "be brief", "dynamic_ref": null}),
            json!({"part_kind": "user-prompt", "content": [{"kind": "image-url"}], "timestamp": "t"}),
            json!({"part_kind": "text", "content": "hi", "id": "x", "provider_name": "p"}),
            json!({"part_kind": "thinking", "content": "", "signature": "sig==", "id": 3}),
            json!({"part_kind": "tool-call", "tool_call_id": "c1", "tool_name": "bash",
                   "args": "{\"command\": \"ls\"}", "z": 1, "a": 2}),
            json!({"part_kind": "tool-return", "tool_call_id": "c1", "tool_name": "bash",
                   "content": {"ok": true}, "metadata": null}),
            json!({"part_kind": "retry-prompt", "content": [{"msg": "bad"}], "tool_name": "bash",
                   "tool_call_id": "c1", "timestamp": "t"}),
        ];
        for value in parts {
            let part = read_both(&value).unwrap();
            assert_eq!(part.part_kind(), value["part_kind"]);
            assert!(!matches!(part, Part::Other(_)), "{value}");
            assert_eq!(serde_json::to_string(&part).unwrap(), value.to_string());
        }
    }

    #[test]
    fn args_of_a_part_that_is_not_a_call_keep_their_place_and_the_last_one_wins() {
        let text =
            r#"{"part_kind":"builtin-tool-call","args":{"q":1},"tool_name":"web","args":{"q":2}}"#;
        let part = serde_json::from_str::<Part>(text).unwrap();
        assert!(matches!(part, Part::Other(_)));
        assert_eq!(
            serde_json::to_string(&part).unwrap(),
            r#"{"part_kind":"builtin-tool-call","args":{"q":2},"tool_name":"web"}"#
        );
        let text = r#"{"part_kind":"text","args":[1],"content":"hi","args":[2]}"#;
        let Part::Text(part) = serde_json::from_str::<Part>(text).unwrap() else {
            panic!("not a text part")
        };
        assert_eq!(
            serde_json::to_string(&part.extra).unwrap(),
            r#"{"args":[2]}"#
        );
        let text = r#"{"part_kind":"tool-call","tool_call_id":"c","tool_name":"t","args":{"a":1},"args":{"b":2}}"#;
        let Part::ToolCall(call) = serde_json::from_str::<Part>(text).unwrap() else {
            panic!("not a call")
        };
        assert_eq!(call.args.json(), r#"{"b":2}"#);
        assert!(call.extra.is_empty());
    }

    #[test]
    fn fields_after_the_extra_ones_and_a_late_kind_read_the_same() {
        let value = json!({"timestamp": "t", "content": "hi", "part_kind": "text"});
        let Part::Text(text) = read_both(&value).unwrap() else {
            panic!("not a text part");
        };
        assert_eq!(text.content, "hi");
        assert_eq!(
            text.extra,
            crate::Extra::from(json!({"timestamp": "t"}).as_object().unwrap().clone())
        );
    }

    #[test]
    fn a_read_part_holds_no_room_beyond_its_extra_fields() {
        for (text, fields) in [
            (
                r#"{"part_kind": "tool-call", "tool_call_id": "c", "tool_name": "t", "args": {}}"#,
                0,
            ),
            (
                r#"{"part_kind": "text", "content": "x", "timestamp": "t"}"#,
                1,
            ),
        ] {
            let part: Part = serde_json::from_str(text).unwrap();
            let extra = match &part {
                Part::ToolCall(p) => &p.extra,
                Part::Text(p) => &p.extra,
                other => panic!("{other:?}"),
            };
            assert_eq!((extra.len(), extra.capacity()), (fields, fields), "{text}");
        }
    }

    #[test]
    fn an_unknown_kind_is_kept_whole_in_its_order() {
        let value = json!({"tool_name": "web", "part_kind": "builtin-tool-call", "content": 1,
                           "args": {}, "extra": [1]});
        let part = read_both(&value).unwrap();
        assert_eq!(part, Part::Other(Box::new(value.clone())));
        assert_eq!(serde_json::to_string(&part).unwrap(), value.to_string());
    }

    #[test]
    fn optional_fields_may_be_missing_or_null() {
        let part = read_both(&json!({"part_kind": "tool-call", "tool_call_id": "c",
                                     "tool_name": "t"}))
        .unwrap();
        assert_eq!(part, Part::tool_call("c", "t", Value::Null));
        let part = read_both(&json!({"part_kind": "thinking", "content": "x", "signature": null}))
            .unwrap();
        assert_eq!(part, Part::thinking("x", None));
        let part = read_both(&json!({"part_kind": "tool-return", "tool_call_id": "c",
                                     "content": "out"}))
        .unwrap();
        assert_eq!(part, Part::tool_return("c", "", "out"));
        let part = read_both(&json!({"part_kind": "retry-prompt", "content": "again",
                                     "tool_call_id": null}))
        .unwrap();
        let Part::RetryPrompt(retry) = part else {
            panic!("not a retry prompt");
        };
        assert_eq!((retry.tool_name, retry.tool_call_id), (None, None));
    }

    #[test]
    fn a_later_duplicate_wins_as_in_a_json_tree() {
        let text = r#"{"part_kind": "text", "content": "first", "content": "second"}"#;
        let part: Part = serde_json::from_str(text).unwrap();
        assert_eq!(part, Part::text("second"));
    }

    #[test]
    fn missing_or_mistyped_fields_are_errors_that_name_them() {
        let cases = [
            (
                json!({"part_kind": "tool-call", "tool_name": "t"}),
                "tool_call_id",
            ),
            (
                json!({"part_kind": "tool-return", "tool_call_id": "c"}),
                "content",
            ),
            (json!({"part_kind": "text"}), "content"),
            (json!({"part_kind": "text", "content": 5}), "content"),
            (
                json!({"part_kind": "tool-call", "tool_call_id": 1, "tool_name": "t"}),
                "tool_call_id",
            ),
            (
                json!({"part_kind": "tool-return", "tool_call_id": "c", "tool_name": null,
                    "content": "x"}),
                "tool_name",
            ),
            (
                json!({"part_kind": "thinking", "content": "x", "signature": 7}),
                "signature",
            ),
            (json!({"content": "no kind"}), "part_kind"),
            (json!({"part_kind": 3, "content": "x"}), "part_kind"),
        ];
        for (value, field) in cases {
            let err = read_both(&value).unwrap_err();
            assert!(
                err.split(" | ").all(|one| one.contains(field)),
                "{value}: {err}"
            );
            assert!(
                !err.contains("xxxx"),
                "the value is named, not printed: {err}"
            );
        }
        assert!(serde_json::from_str::<Part>("[1]").is_err());
        assert!(serde_json::from_str::<Part>("\"text\"").is_err());
    }
}
