//! [`Content`]: what a prompt, a tool's answer or a retry prompt says. Nearly always a string; old
//! files and multimodal prompts hold lists and objects. A `serde_json::Value` is 80 bytes inline in
//! every such part (and so in every part: a part is as big as its biggest kind); a string with the
//! rare other value boxed is 24, a third off each of a long history's parts.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::media::{AsContent, content_text};

/// A part's content: a string, or any other JSON value.
#[derive(Clone, PartialEq)]
pub enum Content {
    /// A string: nearly all content.
    Text(String),
    /// Anything else (never a string).
    Other(Box<Value>),
}

impl Content {
    /// The string the content is, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Content::Text(text) => Some(text),
            Content::Other(_) => None,
        }
    }

    /// The content as text: a string as it is (borrowed), anything else rendered
    /// ([`crate::content_to_text`]: a list with images as its text and a line per image).
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            Content::Text(text) => Cow::Borrowed(text),
            Content::Other(value) => content_text(&**value),
        }
    }

    /// The content as a JSON value (a string is copied).
    pub fn to_value(&self) -> Value {
        match self {
            Content::Text(text) => Value::String(text.clone()),
            Content::Other(value) => (**value).clone(),
        }
    }

    /// The content as a JSON value.
    pub fn into_value(self) -> Value {
        match self {
            Content::Text(text) => Value::String(text),
            Content::Other(value) => *value,
        }
    }

    /// The value, when the content is not a string (a list of items, say).
    pub fn as_value(&self) -> Option<&Value> {
        match self {
            Content::Text(_) => None,
            Content::Other(value) => Some(value),
        }
    }
}

impl Default for Content {
    /// An empty string.
    fn default() -> Self {
        Content::Text(String::new())
    }
}

impl AsContent for Content {
    fn content_str(&self) -> Option<&str> {
        self.as_str()
    }

    fn content_value(&self) -> Option<&Value> {
        self.as_value()
    }
}

impl From<Value> for Content {
    fn from(value: Value) -> Self {
        match value {
            Value::String(text) => Content::Text(text),
            other => Content::Other(Box::new(other)),
        }
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::Text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::Text(text.to_string())
    }
}

impl PartialEq<Value> for Content {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Content::Text(text), Value::String(s)) => text == s,
            (Content::Other(value), other) => **value == *other,
            _ => false,
        }
    }
}

impl PartialEq<&str> for Content {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl std::fmt::Debug for Content {
    /// As the value's own debug form (`String("…")`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Content::Text(text) => f.debug_tuple("String").field(text).finish(),
            Content::Other(value) => value.fmt(f),
        }
    }
}

impl Serialize for Content {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Content::Text(text) => serializer.serialize_str(text),
            Content::Other(value) => value.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Content::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn a_string_is_text_and_anything_else_a_value_both_written_back_as_read() {
        for value in [
            json!("hi"),
            json!([{"kind": "binary"}]),
            json!({"ok": true}),
            json!(null),
        ] {
            let content = Content::from(value.clone());
            assert_eq!(content.as_str().is_some(), value.is_string());
            assert_eq!(content, value);
            assert_eq!(serde_json::to_value(&content).unwrap(), value);
            let read: Content = serde_json::from_value(value.clone()).unwrap();
            assert_eq!(read, content);
            assert_eq!(content.clone().into_value(), value);
            assert_eq!(content.to_value(), value);
        }
        assert_eq!(Content::from("x").text(), "x");
        assert_eq!(
            Content::from(json!(["a", "b"])).text(),
            content_text(&json!(["a", "b"]))
        );
        assert_ne!(Content::from("1"), json!(1));
        assert_eq!(
            format!("{:?}", Content::from("x")),
            format!("{:?}", json!("x"))
        );
    }

    #[test]
    fn is_a_string_wide() {
        assert_eq!(
            std::mem::size_of::<Content>(),
            std::mem::size_of::<String>()
        );
    }
}
