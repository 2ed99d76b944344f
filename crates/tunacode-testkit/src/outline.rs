//! The outline of a request body: the fields the fake itself reads (its request rules, the model,
//! whether tools are offered, the usage option), read in one pass without building the rest into a
//! tree. A long session's body is megabytes of tool output that no rule looks at; the full tree is
//! built only when a test reads [`RecordedRequest::body`](crate::RecordedRequest).
//!
//! Written by hand because serde has no way to keep only some keys of every object at any depth.

use std::fmt;

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Every key any outline reader looks at (the rules in `rules.rs`, the renderers, `offers_tools`).
const KEPT: &[&str] = &[
    "messages",
    "contents",
    "input",
    "role",
    "tool_call_id",
    "tool_calls",
    "id",
    "content",
    "type",
    "tool_use_id",
    "parts",
    "functionCall",
    "functionResponse",
    "name",
    "call_id",
    "tools",
    "model",
    "stream_options",
    "include_usage",
];

/// The outline of `raw`, or `Null` when it is not JSON (as the full tree would be).
pub(crate) fn outline(raw: &[u8]) -> Value {
    let mut de = serde_json::Deserializer::from_slice(raw);
    let value = Outline { strings: true }.deserialize(&mut de);
    value
        .and_then(|v| de.end().map(|()| v))
        .unwrap_or(Value::Null)
}

/// The outline of `raw` without its history array (`messages`, `contents`, `input`): what a reply
/// needs, for a fake that does not check requests. `Null` when `raw` is not a JSON object.
pub(crate) fn head_outline(raw: &[u8]) -> Value {
    let mut de = serde_json::Deserializer::from_slice(raw);
    let value = serde::Deserializer::deserialize_map(&mut de, Head);
    value
        .and_then(|v| de.end().map(|()| v))
        .unwrap_or(Value::Null)
}

/// The history arrays [`head_outline`] skips.
const HISTORY: [&str; 3] = ["messages", "contents", "input"];

/// A body's top-level object, its history skipped.
struct Head;

impl<'de> Visitor<'de> for Head {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(Key)? {
            match key.filter(|k| !HISTORY.contains(k)) {
                Some(key) => {
                    out.insert(key.into(), map.next_value_seed(Outline { strings: true })?);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Value::Object(out))
    }
}

/// Reads a value keeping only [`KEPT`] keys of its objects; `strings: false` reads a string as
/// empty (a `content` string is text no reader looks at; its arrays of blocks are kept).
#[derive(Clone, Copy)]
struct Outline {
    strings: bool,
}

impl<'de> DeserializeSeed<'de> for Outline {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Outline {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(if self.strings {
            v.to_string()
        } else {
            String::new()
        }))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Outline { strings: true })? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(Key)? {
            match key {
                Some(key) => {
                    let strings = key != "content";
                    out.insert(key.into(), map.next_value_seed(Outline { strings })?);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Value::Object(out))
    }
}

/// An object key: the [`KEPT`] name it is, or `None` for any other.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Option<&'static str>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Option<&'static str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(KEPT.iter().copied().find(|k| *k == v))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_head_outline_skips_the_history_and_keeps_what_a_reply_reads() {
        for history in ["messages", "contents", "input"] {
            let body = json!({"model": "m", "stream_options": {"include_usage": true},
                              history: [{"role": "user", "content": "hi"}],
                              "tools": [{"name": "ls"}], "temperature": 1});
            let head = head_outline(body.to_string().as_bytes());
            assert_eq!(
                head,
                json!({"model": "m", "stream_options": {"include_usage": true},
                       "tools": [{"name": "ls"}]}),
                "{history}"
            );
        }
        assert_eq!(head_outline(b"[1]"), Value::Null);
        assert_eq!(head_outline(b"not json"), Value::Null);
    }

    #[test]
    fn the_outline_keeps_what_the_rules_read_and_drops_the_rest() {
        let body = json!({
            "model": "m", "temperature": 0.5, "stream_options": {"include_usage": true},
            "tools": [{"type": "function", "function": {"name": "ls", "parameters": {}}}],
            "messages": [
                {"role": "system", "content": "a long system prompt"},
                {"role": "assistant", "content": null,
                 "tool_calls": [{"id": "c1", "type": "function",
                                 "function": {"name": "ls", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "file a\nfile b"},
                {"role": "user", "content": [{"type": "text", "text": "hi \"there\""}]}
            ]
        });
        let got = outline(body.to_string().as_bytes());
        assert_eq!(
            got,
            json!({
                "model": "m", "stream_options": {"include_usage": true},
                "tools": [{"type": "function"}],
                "messages": [
                    {"role": "system", "content": ""},
                    {"role": "assistant", "content": null,
                     "tool_calls": [{"id": "c1", "type": "function"}]},
                    {"role": "tool", "tool_call_id": "c1", "content": ""},
                    {"role": "user", "content": [{"type": "text"}]}
                ]
            })
        );
        assert_same_verdicts(&body);
        assert_eq!(outline(b"not json"), Value::Null);
        assert_eq!(outline(b"{\"model\": \"m\"} trailing"), Value::Null);
    }

    /// Every rule gives the outline of `body` the verdict it gives the whole body.
    fn assert_same_verdicts(body: &Value) {
        let outlined = outline(body.to_string().as_bytes());
        for rule in [
            crate::rules::chat,
            crate::rules::responses,
            crate::rules::anthropic,
            crate::rules::gemini,
        ] {
            assert_eq!(rule(&outlined), rule(body), "{body}");
        }
    }

    #[test]
    fn the_rules_refuse_from_the_outline_what_they_refuse_from_the_body() {
        let call =
            |id: &str| json!({"type": "tool_use", "id": id, "name": "ls", "input": {"id": "x"}});
        let answer =
            |id: &str| json!({"type": "tool_result", "tool_use_id": id, "content": "long text"});
        let bodies = [
            // Chat: an answer without its call, a call without its answer.
            json!({"messages": [{"role": "tool", "tool_call_id": "c9", "content": "x"}]}),
            json!({"messages": [{"role": "assistant", "tool_calls": [{"id": "c1"}]},
                                {"role": "user", "content": "go on"}]}),
            // Responses: the same two.
            json!({"input": [{"type": "function_call_output", "call_id": "c2", "output": "x"}]}),
            json!({"input": [{"type": "function_call", "call_id": "c3", "arguments": "{}"}]}),
            // Anthropic: turns out of order, tool blocks without tools, an unanswered call.
            json!({"messages": [{"role": "assistant", "content": "hi"}]}),
            json!({"messages": [{"role": "user", "content": "go"},
                                {"role": "assistant", "content": [call("t1")]},
                                {"role": "user", "content": [answer("t1")]}]}),
            json!({"tools": [{"name": "ls"}], "messages": [{"role": "user", "content": "go"},
                                {"role": "assistant", "content": [call("t1")]},
                                {"role": "user", "content": [answer("t2")]}]}),
            json!({"tools": [{"name": "ls"}], "messages": [{"role": "user", "content": "go"},
                                {"role": "assistant", "content": [call("t1")]},
                                {"role": "user", "content": [answer("t1")]}]}),
            // Gemini: a call answered under another name, then one answered right.
            json!({"contents": [{"role": "user", "parts": [{"text": "go"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "cat", "response": {}}}]}]}),
            json!({"contents": [{"role": "user", "parts": [{"text": "go"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {}}}]}]}),
        ];
        for body in &bodies {
            assert_same_verdicts(body);
        }
        // The cases above do tell verdicts apart.
        let refused = bodies
            .iter()
            .filter(|b| crate::rules::anthropic(b).is_err())
            .count();
        assert!(refused > 0 && refused < bodies.len());
    }
}
