//! The value of an extra field: a string (`finish_reason`, `timestamp`, `model_name`, …, most of
//! them) in a `CompactString`, any other JSON value boxed.
//!
//! A `serde_json::Value` is 80 bytes inline and a string in it one more allocation; this is 24
//! bytes, and a string of up to 24 bytes is held inline. A response's one `finish_reason` took a
//! 128-byte list and a 32-byte string; it now takes one 80-byte list.

use std::fmt;

use compact_str::CompactString;
use serde::ser::{Serialize, Serializer};
use serde_json::Value;

/// A JSON value as an extra field holds it; it compares, prints and is written as that value.
#[derive(Clone)]
pub enum ExtraValue {
    /// A string.
    Text(CompactString),
    /// Any other value (never a string, as `From<Value>` builds it; `value_mut` may put one here).
    Other(Box<Value>),
}

impl ExtraValue {
    /// The string, when the value is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            ExtraValue::Text(text) => Some(text),
            ExtraValue::Other(value) => value.as_str(),
        }
    }

    /// The value when it is held in the general form: any value that is not a string (objects,
    /// arrays, numbers, booleans, null), and a string once changed through `value_mut`.
    pub fn as_json(&self) -> Option<&Value> {
        match self {
            ExtraValue::Text(_) => None,
            ExtraValue::Other(value) => Some(value),
        }
    }

    /// The value as a `serde_json::Value` (a copy).
    pub fn to_value(&self) -> Value {
        self.clone().into_value()
    }

    /// The value as a `serde_json::Value`.
    pub fn into_value(self) -> Value {
        match self {
            ExtraValue::Text(text) => Value::String(text.into_string()),
            ExtraValue::Other(value) => *value,
        }
    }

    /// The value, to change in any way (a string is moved into the general form first).
    pub fn value_mut(&mut self) -> &mut Value {
        if let ExtraValue::Text(text) = self {
            let text = std::mem::take(text).into_string();
            *self = ExtraValue::Other(Box::new(Value::String(text)));
        }
        match self {
            ExtraValue::Other(value) => value,
            ExtraValue::Text(_) => unreachable!("a string was moved into the general form above"),
        }
    }
}

impl From<Value> for ExtraValue {
    fn from(value: Value) -> Self {
        match value {
            // Kept in place when longer than 24 bytes; copied inline (and freed) when shorter.
            Value::String(text) => ExtraValue::Text(CompactString::from(text)),
            other => ExtraValue::Other(Box::new(other)),
        }
    }
}

/// Equal when they are the same JSON value, in whichever form each holds it.
impl PartialEq for ExtraValue {
    fn eq(&self, other: &Self) -> bool {
        match (self.as_json(), other.as_json()) {
            (Some(a), Some(b)) => a == b,
            _ => self.as_str().is_some() && self.as_str() == other.as_str(),
        }
    }
}

impl PartialEq<Value> for ExtraValue {
    fn eq(&self, other: &Value) -> bool {
        match self {
            ExtraValue::Text(text) => other.as_str() == Some(text.as_str()),
            ExtraValue::Other(value) => **value == *other,
        }
    }
}

impl PartialEq<&str> for ExtraValue {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl fmt::Debug for ExtraValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_str() {
            Some(text) => fmt::Debug::fmt(text, f),
            None => fmt::Debug::fmt(&self.to_value(), f),
        }
    }
}

impl Serialize for ExtraValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ExtraValue::Text(text) => serializer.serialize_str(text),
            ExtraValue::Other(value) => value.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_value_takes_24_bytes_and_a_short_string_no_allocation_of_its_own() {
        assert_eq!(std::mem::size_of::<ExtraValue>(), 24);
        let reason = ExtraValue::from(json!("tool_calls"));
        assert!(matches!(&reason, ExtraValue::Text(t) if !t.is_heap_allocated()));
        let long = ExtraValue::from(json!("2026-11-27T23:59:59.123456+00:00"));
        assert_eq!(long.as_str(), Some("2026-11-27T23:59:59.123456+00:00"));
    }

    #[test]
    fn either_form_compares_prints_and_is_written_as_its_json_value() {
        let text = ExtraValue::from(json!("stop"));
        let general = ExtraValue::Other(Box::new(json!("stop")));
        assert_eq!(text, general);
        assert_eq!(general, text);
        assert_eq!(text, json!("stop"));
        assert_eq!(text, "stop");
        assert_ne!(text, ExtraValue::from(json!("end")));
        assert_ne!(text, ExtraValue::from(json!(["stop"])));
        assert_ne!(ExtraValue::from(json!(1)), ExtraValue::from(json!("1")));
        assert_eq!(ExtraValue::from(json!({"a": 1})), json!({"a": 1}));
        assert_eq!(format!("{text:?}"), format!("{:?}", "stop"));
        assert_eq!(format!("{general:?}"), format!("{text:?}"));
        assert_eq!(serde_json::to_string(&text).unwrap(), r#""stop""#);
        assert_eq!(serde_json::to_string(&general).unwrap(), r#""stop""#);
        assert_eq!(text.to_value(), json!("stop"));
        assert_eq!(ExtraValue::from(json!([1])).into_value(), json!([1]));
    }

    #[test]
    fn a_string_changed_in_place_keeps_its_text() {
        let mut value = ExtraValue::from(json!("old"));
        assert_eq!(value.as_json(), None);
        *value.value_mut() = json!({"new": true});
        assert_eq!(value, json!({"new": true}));
        let mut text = ExtraValue::from(json!("kept"));
        assert_eq!(text.value_mut(), &json!("kept"));
        assert_eq!(text.as_str(), Some("kept"));
    }
}
