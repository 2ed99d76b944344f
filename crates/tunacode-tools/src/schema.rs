//! JSON schemas of tool arguments, derived from the argument types with `schemars` so the type that
//! parses a call is also the one that describes it to the model.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The object schema of `T` in the plain form every model provider accepts: `type`, `properties` and
/// `required` (always present), every subschema inlined, no `$schema`, `title`, `$defs` or `format`
/// keys, and `Option` fields as their plain type (optional, never `null`-able).
pub(crate) fn schema_for<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
        })
        .into_generator();
    let mut schema = provider_schema(generator.into_root_schema_for::<T>().to_value());
    // `#[serde(default)]` lists say `"default": []`, which tells the model nothing an optional list
    // does not: left out, as the schema goes with every call.
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for property in properties.values_mut().filter_map(Value::as_object_mut) {
            if property.get("default") == Some(&Value::Array(Vec::new())) {
                property.remove("default");
            }
        }
    }
    schema
}

/// A tool schema from elsewhere (an MCP server's `inputSchema`, say) in the same plain form: an object
/// schema with `properties` and `required`, without the keys providers reject. References into
/// `$defs` are not inlined; a schema that uses them keeps them (providers other than Gemini accept
/// them, and Gemini's client drops what it cannot take).
pub fn provider_schema(mut schema: Value) -> Value {
    let keeps_defs = schema.to_string().contains("\"$ref\"");
    let defs = keeps_defs.then(|| schema.get("$defs").cloned()).flatten();
    simplify(&mut schema);
    let obj = match schema {
        Value::Object(obj) => obj,
        // A non-object root (`true`, say) describes nothing: offer an empty object.
        _ => Map::new(),
    };
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    out.insert("properties".into(), Value::Object(Map::new()));
    out.insert("required".into(), Value::Array(Vec::new()));
    for (key, value) in obj {
        if key != "type" {
            out.insert(key, value);
        }
    }
    if let Some(defs) = defs {
        out.insert("$defs".into(), defs);
    }
    Value::Object(out)
}

/// Keys dropped wherever they occur: metadata providers reject or ignore, and definitions that
/// `inline_subschemas` made unused.
const DROPPED: [&str; 5] = ["$schema", "title", "$defs", "definitions", "format"];

/// Rewrites a schema (and every subschema) into the plain form described on [`schema_for`].
fn simplify(value: &mut Value) {
    match value {
        Value::Object(obj) => {
            for key in DROPPED {
                obj.remove(key);
            }
            drop_null_alternatives(obj);
            obj.values_mut().for_each(simplify);
        }
        Value::Array(items) => items.iter_mut().for_each(simplify),
        _ => {}
    }
}

/// Removes what makes a schema accept `null` (as `Option` fields do): `"null"` in a `type` list or an
/// `enum`, and `{"type": "null"}` among `anyOf`/`oneOf` alternatives (a sole remaining alternative is
/// merged into the schema itself).
fn drop_null_alternatives(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = obj.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            obj.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = obj.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(alternatives)) = obj.get_mut(key) else {
            continue;
        };
        alternatives.retain(|a| a.get("type").is_none_or(|t| t != "null"));
        if alternatives.len() == 1 {
            let Some(Value::Object(only)) = alternatives.pop() else {
                continue;
            };
            obj.remove(key);
            for (k, v) in only {
                // The schema's own annotations (its field's description) win over the alternative's.
                obj.entry(k).or_insert(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    #[serde(rename_all = "snake_case")]
    enum Mode {
        Fast,
        SlowAndSure,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        /// A number.
        n: u8,
    }

    /// Documented at the top.
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Example {
        /// The name.
        name: String,
        /// How many.
        #[schemars(range(min = 1, max = 9))]
        count: Option<u64>,
        /// Which mode.
        mode: Option<Mode>,
        /// Nested.
        inner: Option<Inner>,
        /// Tags.
        #[serde(default)]
        tags: Vec<String>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Empty {}

    #[test]
    fn options_are_plain_optional_fields_and_everything_is_inlined() {
        assert_eq!(
            schema_for::<Example>(),
            json!({
                "type": "object",
                "description": "Documented at the top.",
                "properties": {
                    "name": {"type": "string", "description": "The name."},
                    "count": {"type": "integer", "minimum": 1, "maximum": 9, "description": "How many."},
                    "mode": {"type": "string", "enum": ["fast", "slow_and_sure"], "description": "Which mode."},
                    "inner": {
                        "type": "object",
                        "description": "Nested.",
                        "properties": {
                            "n": {"type": "integer", "minimum": 0, "maximum": 255, "description": "A number."}
                        },
                        "required": ["n"]
                    },
                    "tags": {"type": "array", "items": {"type": "string"}, "description": "Tags."}
                },
                "required": ["name"]
            })
        );
    }

    #[test]
    fn an_empty_struct_still_has_properties_and_required() {
        assert_eq!(
            schema_for::<Empty>(),
            json!({"type": "object", "properties": {}, "required": []})
        );
    }
}
