//! Typed argument extraction: deserializes a call's arguments into a per-tool struct. Unknown arguments are
//! ignored; a missing argument or one of the wrong type is a [`ToolError::Retry`] naming the argument.

use std::path::PathBuf;

use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::tool_error::ToolError;
use crate::workspace::Workspace;

/// The path in the string argument `key`, as asked ([`Workspace::lexical`]); none when it is missing.
pub(crate) fn path_arg(
    args: &Map<String, Value>,
    key: &str,
    workspace: &Workspace,
) -> Vec<PathBuf> {
    args.get(key)
        .and_then(Value::as_str)
        .and_then(|p| workspace.lexical(p))
        .into_iter()
        .collect()
}

/// Deserializes `args` into `T`, or explains to the model what is wrong with them.
pub(crate) fn parse<T: DeserializeOwned>(
    tool: &str,
    args: &Map<String, Value>,
) -> Result<T, ToolError> {
    T::deserialize(ArgsDeserializer { args })
        .map_err(|e| ToolError::Retry(format!("invalid arguments for {tool}: {e}")))
}

/// A deserializer over the argument map that prefixes value errors with the argument's name.
struct ArgsDeserializer<'a> {
    args: &'a Map<String, Value>,
}

impl<'de> de::Deserializer<'de> for ArgsDeserializer<'_> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(Access {
            iter: self.args.iter(),
            current: None,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct Access<'a> {
    iter: serde_json::map::Iter<'a>,
    current: Option<(&'a String, &'a Value)>,
}

impl<'de> MapAccess<'de> for Access<'_> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        match self.iter.next() {
            Some((key, value)) => {
                self.current = Some((key, value));
                let key: de::value::StrDeserializer<'_, serde_json::Error> =
                    key.as_str().into_deserializer();
                seed.deserialize(key).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let (key, value) = self
            .current
            .take()
            .ok_or_else(|| de::Error::custom("an argument value without a name"))?;
        seed.deserialize(value.clone())
            .map_err(|e| de::Error::custom(format_args!("argument `{key}`: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    struct Example {
        name: String,
        count: Option<u64>,
        #[serde(default)]
        flag: bool,
    }

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().expect("object").clone()
    }

    #[test]
    fn parses_and_ignores_unknown_arguments() {
        let ex: Example = parse("t", &map(json!({"name": "x", "count": 3, "extra": [1]}))).unwrap();
        assert_eq!(ex.name, "x");
        assert_eq!(ex.count, Some(3));
        assert!(!ex.flag);
        let ex: Example = parse("t", &map(json!({"name": "x", "count": null}))).unwrap();
        assert_eq!(ex.count, None);
    }

    #[test]
    fn names_the_missing_or_mistyped_argument() {
        let err = parse::<Example>("t", &map(json!({"count": 3}))).unwrap_err();
        let ToolError::Retry(msg) = err else {
            panic!("{err:?}")
        };
        assert!(
            msg.contains("invalid arguments for t") && msg.contains("`name`"),
            "{msg}"
        );

        let err = parse::<Example>("t", &map(json!({"name": "x", "count": "3"}))).unwrap_err();
        let ToolError::Retry(msg) = err else {
            panic!("{err:?}")
        };
        assert!(msg.contains("argument `count`"), "{msg}");

        let err = parse::<Example>("t", &map(json!({"name": "x", "count": -1}))).unwrap_err();
        assert!(matches!(err, ToolError::Retry(m) if m.contains("`count`")));
    }
}
