//! [`ToolArgs`]: a tool call's arguments, kept as the compact JSON text they were read or built from.
//!
//! A session of 10,000 messages holds some 5,000 calls. As `serde_json::Value` trees (an ordered map
//! each: an entry table, a hash index and two strings) their arguments took ~420 bytes and four
//! allocations per call, most of a megabyte per thousand calls, for values that are only ever written
//! back: to the session file, or into a request body (the Chat and Responses wires send them as a
//! JSON string, the others as the object itself). Text is one allocation of its own length, written
//! as it is. It is parsed when a tool runs or a front end shows the call, when an Anthropic or Gemini
//! body is written whole (they send the object; a continued body does not write old calls again),
//! and when two calls whose texts differ are compared. Text read from a file is kept only when a
//! reader of values would read it the same (`tool_args_text.rs`); other text goes through a value.

use serde::de::value::SeqAccessDeserializer;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::tool_args_text::kept_as_read;

/// A tool call's arguments: any JSON value (an object, or a string holding one, as providers send
/// them), kept as compact JSON text.
#[derive(Clone)]
pub struct ToolArgs(Box<RawValue>);

impl ToolArgs {
    /// The arguments `value` holds.
    pub fn from_value(value: &Value) -> Self {
        ToolArgs(compact(value))
    }

    /// The compact JSON text (`{"path":"a.rs"}`, or a JSON string literal).
    pub fn json(&self) -> &str {
        self.0.get()
    }

    /// The JSON text as a raw value (written as it is by serde_json's serializers).
    pub fn raw(&self) -> &RawValue {
        &self.0
    }

    /// The arguments as a JSON value (parsed: call it where a tool runs or a call is shown, not for
    /// every message of a history).
    pub fn to_value(&self) -> Value {
        // The text was checked when it was made, so it parses.
        serde_json::from_str(self.json()).unwrap_or(Value::Null)
    }

    /// Whether the arguments are a JSON object (not a string holding one).
    pub fn is_object(&self) -> bool {
        self.json().starts_with('{')
    }

    /// The string the arguments are, when they are a JSON string (as the Chat wire sends them).
    pub fn as_string(&self) -> Option<String> {
        if !self.json().starts_with('"') {
            return None;
        }
        serde_json::from_str(self.json()).ok()
    }

    /// The arguments as a JSON object. A JSON string is parsed; an empty string or null is `{}`.
    pub fn object(&self) -> Result<Map<String, Value>, String> {
        match self.to_value() {
            Value::Object(map) => Ok(map),
            Value::Null => Ok(Map::new()),
            Value::String(s) if s.trim().is_empty() => Ok(Map::new()),
            Value::String(s) => match serde_json::from_str::<Value>(&s) {
                Ok(Value::Object(map)) => Ok(map),
                Ok(other) => Err(format!("arguments must be a JSON object, got {other}")),
                Err(e) => Err(format!("arguments are not valid JSON ({e}): {s}")),
            },
            other => Err(format!("arguments must be a JSON object, got {other}")),
        }
    }

    /// The text the arguments stand for as one string: a JSON string's content, or the JSON text of
    /// anything else (what the Chat and Responses wires send as `arguments`).
    pub fn as_text(&self) -> std::borrow::Cow<'_, str> {
        match self.as_string() {
            Some(text) => std::borrow::Cow::Owned(text),
            None => std::borrow::Cow::Borrowed(self.json()),
        }
    }

    /// The value of field `name` when the arguments are an object (a string holding one is parsed).
    pub fn field(&self, name: &str) -> Option<Value> {
        self.object().ok()?.remove(name)
    }
}

impl Default for ToolArgs {
    /// `null`: a call read without arguments.
    fn default() -> Self {
        ToolArgs::from_value(&Value::Null)
    }
}

impl From<Value> for ToolArgs {
    fn from(value: Value) -> Self {
        ToolArgs::from_value(&value)
    }
}

impl From<&Value> for ToolArgs {
    fn from(value: &Value) -> Self {
        ToolArgs::from_value(value)
    }
}

impl PartialEq for ToolArgs {
    /// Equal as JSON values: the same text, or texts that differ only in an object's key order.
    fn eq(&self, other: &Self) -> bool {
        self.json() == other.json() || self.to_value() == other.to_value()
    }
}

impl PartialEq<Value> for ToolArgs {
    fn eq(&self, other: &Value) -> bool {
        self.to_value() == *other
    }
}

impl std::fmt::Debug for ToolArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.json())
    }
}

impl std::fmt::Display for ToolArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.json())
    }
}

impl Serialize for ToolArgs {
    /// serde_json's writers get the text as it is (compact, inside pretty output too); any other
    /// serializer (a snapshot's, say) gets the parsed value, since only serde_json knows a raw value.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if writes_json_text::<S>() {
            self.0.serialize(serializer)
        } else {
            self.to_value().serialize(serializer)
        }
    }
}

/// Whether `S` is serde_json's text serializer (`to_writer`, `to_string`, `to_vec`), which writes a
/// raw value's text in place. Told by the type's name: Rust has no other way to ask a generic type
/// what it is without `'static`, and a name that stops matching only costs the parse it avoids.
fn writes_json_text<S>() -> bool {
    std::any::type_name::<S>().starts_with("&mut serde_json::ser::Serializer<")
}

impl<'de> Deserialize<'de> for ToolArgs {
    /// Reads any JSON value: from serde_json's readers as its text (text with whitespace between its
    /// tokens is written compactly again), from any other deserializer (serde's buffered content of
    /// a `flatten`ed field, say) as a value.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_newtype_struct(RAW_VALUE_TOKEN, ArgsVisitor)
    }
}

impl ToolArgs {
    /// Arguments read as JSON text.
    fn from_text<E: serde::de::Error>(text: String) -> Result<Self, E> {
        if kept_as_read(&text) {
            return RawValue::from_string(text).map(ToolArgs).map_err(E::custom);
        }
        let value: Value = serde_json::from_str(&text).map_err(E::custom)?;
        Ok(ToolArgs::from_value(&value))
    }
}

/// The name serde_json's readers answer with a value's text instead of the value (the name its own
/// `RawValue` asks for). Should a later serde_json change it, the arguments are read as a value: slower,
/// never wrong.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// Reads [`ToolArgs`] from a value's text where the deserializer offers it, else from the value.
struct ArgsVisitor;

impl<'de> Visitor<'de> for ArgsVisitor {
    type Value = ToolArgs;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<ToolArgs, D::Error> {
        Value::deserialize(d).map(ToolArgs::from)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ToolArgs, A::Error> {
        let first = match map.next_key::<MapKey>()? {
            // serde_json's answer: one entry whose value is the text.
            Some(MapKey::RawText) => return ToolArgs::from_text(map.next_value::<String>()?),
            Some(MapKey::Name(name)) => Some(name),
            None => None,
        };
        let mut object = Map::new();
        if let Some(name) = first {
            object.insert(name, map.next_value()?);
        }
        while let Some((name, value)) = map.next_entry::<String, Value>()? {
            object.insert(name, value);
        }
        Ok(Value::Object(object).into())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ToolArgs, A::Error> {
        Value::deserialize(SeqAccessDeserializer::new(seq)).map(ToolArgs::from)
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<ToolArgs, E> {
        Ok(Value::String(text.to_string()).into())
    }

    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<ToolArgs, E> {
        Ok(Value::Bool(b).into())
    }

    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<ToolArgs, E> {
        Ok(Value::from(n).into())
    }

    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<ToolArgs, E> {
        Ok(Value::from(n).into())
    }

    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<ToolArgs, E> {
        Ok(Value::from(n).into())
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<ToolArgs, E> {
        Ok(ToolArgs::default())
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<ToolArgs, E> {
        Ok(ToolArgs::default())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<ToolArgs, D::Error> {
        Value::deserialize(d).map(ToolArgs::from)
    }
}

/// The first key of a map: serde_json's raw-text key, or an object's own.
enum MapKey {
    RawText,
    Name(String),
}

impl<'de> Deserialize<'de> for MapKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(|name| match name.as_str() {
            RAW_VALUE_TOKEN => MapKey::RawText,
            _ => MapKey::Name(name),
        })
    }
}

/// `value` as compact JSON text.
fn compact(value: &Value) -> Box<RawValue> {
    // A `Value` always serializes (its keys are strings), and its text is valid JSON.
    serde_json::value::to_raw_value(value).unwrap_or_default()
}

#[cfg(test)]
#[path = "tool_args_tests.rs"]
mod tests;
