//! [`FieldName`]: the name of a field a message or part keeps without modelling it. A few names
//! recur in every message or part of a session (`finish_reason`, `timestamp`, `model_name`, …): read
//! as static strings, the 5,000 `finish_reason`s of a 10,000-message session take no allocation
//! of their own (32 bytes each with malloc's).

use std::borrow::Cow;

use serde::de::{Deserialize, Deserializer, Visitor};

/// A field's name: static for the names that recur, owned otherwise.
pub type FieldName = Cow<'static, str>;

/// The name `name`, without an allocation when it is one that recurs.
pub fn field_name(name: &str) -> FieldName {
    match known(name) {
        Some(known) => Cow::Borrowed(known),
        None => Cow::Owned(name.to_string()),
    }
}

/// The name `name` (its allocation dropped when it is one that recurs).
pub fn owned_field_name(name: String) -> FieldName {
    match known(&name) {
        Some(known) => Cow::Borrowed(known),
        None => Cow::Owned(name),
    }
}

/// The names that recur in the messages and parts pydantic-ai and TunaCode write.
fn known(name: &str) -> Option<&'static str> {
    Some(match name {
        "kind" => "kind",
        "parts" => "parts",
        // A part's own fields (read without an allocation by the part reader too).
        "part_kind" => "part_kind",
        "content" => "content",
        "tool_call_id" => "tool_call_id",
        "tool_name" => "tool_name",
        "args" => "args",
        "signature" => "signature",
        "finish_reason" => "finish_reason",
        "timestamp" => "timestamp",
        "model_name" => "model_name",
        "provider_name" => "provider_name",
        "provider_details" => "provider_details",
        "provider_response_id" => "provider_response_id",
        "provider_url" => "provider_url",
        "usage" => "usage",
        "id" => "id",
        "run_id" => "run_id",
        "metadata" => "metadata",
        "instructions" => "instructions",
        "dynamic_ref" => "dynamic_ref",
        "vendor_id" => "vendor_id",
        "vendor_details" => "vendor_details",
        // `COMPACTED_KEY` (message.rs checks they agree).
        "compacted" => "compacted",
        _ => return None,
    })
}

/// A field name read from JSON as a [`FieldName`].
pub(crate) struct FieldKey(pub(crate) FieldName);

impl<'de> Deserialize<'de> for FieldKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(FieldKeyVisitor)
    }
}

struct FieldKeyVisitor;

impl Visitor<'_> for FieldKeyVisitor {
    type Value = FieldKey;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<FieldKey, E> {
        Ok(FieldKey(field_name(name)))
    }

    fn visit_string<E: serde::de::Error>(self, name: String) -> Result<FieldKey, E> {
        Ok(FieldKey(owned_field_name(name)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recurring_names_are_static_and_others_owned() {
        assert!(matches!(
            field_name("finish_reason"),
            Cow::Borrowed("finish_reason")
        ));
        assert!(matches!(
            owned_field_name("timestamp".into()),
            Cow::Borrowed("timestamp")
        ));
        assert!(matches!(field_name("finish_reasons"), Cow::Owned(_)));
        let key: FieldKey = serde_json::from_str(r#""model_name""#).unwrap();
        assert!(matches!(key.0, Cow::Borrowed("model_name")));
        let key: FieldKey = serde_json::from_str(r#""a\"b""#).unwrap();
        assert_eq!(key.0, "a\"b");
    }
}
