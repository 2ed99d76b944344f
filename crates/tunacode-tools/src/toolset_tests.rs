//! Tests of the tool set and of the built-in tools it offers.

use async_trait::async_trait;
use serde_json::{Map, Value, json};

use super::*;
use crate::tool::{ToolContext, ToolKind, ToolOutput};
use crate::tool_error::ToolError;

/// A tool known only at run time: it owns its name and description.
struct Dynamic {
    name: String,
    description: String,
}

#[async_trait]
impl Tool for Dynamic {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}, "required": []})
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Execute
    }
    async fn call(
        &self,
        _args: Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self.description.clone()))
    }
}

fn dynamic(name: &str, description: &str) -> Arc<dyn Tool> {
    Arc::new(Dynamic {
        name: format!("mcp__{name}"),
        description: description.to_string(),
    })
}

#[test]
fn run_time_tools_are_added_replaced_and_removed_by_name() {
    let mut set = ToolSet::builtin();
    assert_eq!(set.len(), 10);
    set.add(dynamic("search", "first"));
    set.add(dynamic("search", "second"));
    assert_eq!(set.len(), 11);
    let tool = set.get("mcp__search").expect("added");
    assert_eq!(tool.description(), "second");
    assert_eq!(tool.spec().name, "mcp__search");
    assert_eq!(set.names().last(), Some(&"mcp__search"));

    assert!(set.remove("mcp__search"));
    assert!(!set.remove("mcp__search"));
    assert!(set.get("mcp__search").is_none());
    assert!(set.remove("bash"));
    assert_eq!(set.len(), 9);
    assert!(!set.names().contains(&"bash"));

    let empty = ToolSet::new();
    assert!(empty.is_empty() && empty.names().is_empty());
    assert!(!set.is_empty());
}

#[test]
fn a_call_is_classified_as_its_tool_kind_by_default() {
    let tool = dynamic("x", "y");
    assert_eq!(tool.classify(&Map::new()), ToolKind::Execute);
    for tool in builtin_tools(&TodoList::default()) {
        assert_eq!(tool.classify(&Map::new()), tool.kind(), "{}", tool.name());
    }
}

// The built-in set.

#[test]
fn builtin_set_has_the_nine_seed_tools_and_apply_patch() {
    let set = ToolSet::builtin();
    assert_eq!(
        set.names(),
        vec![
            "read_file",
            "write_file",
            "update_file",
            "apply_patch",
            "bash",
            "run_command",
            "grep",
            "glob",
            "list_dir",
            "todo"
        ]
    );
}

/// Parameters whose name and tool description say what they are.
const SAID_BY_NAME: [(&str, &str); 10] = [
    ("read_file", "file_path"),
    ("write_file", "file_path"),
    ("write_file", "content"),
    ("update_file", "file_path"),
    ("bash", "command"),
    ("glob", "pattern"),
    ("todo", "action"),
    ("todo", "content"),
    ("todo", "items"),
    ("todo", "id"),
];

#[test]
fn every_spec_is_an_object_schema_whose_required_fields_exist() {
    for spec in ToolSet::builtin().specs() {
        let params = &spec.parameters;
        assert_eq!(params["type"], "object", "{}", spec.name);
        let props = params["properties"].as_object().expect("properties");
        assert!(!props.is_empty(), "{}", spec.name);
        for (name, prop) in props {
            // A parameter goes without a description only where its name and the tool's
            // description say all there is (the schema goes with every call).
            assert!(
                prop["description"].is_string() || SAID_BY_NAME.contains(&(&spec.name, name)),
                "{}.{name} lacks a description",
                spec.name
            );
            assert!(
                prop["type"].is_string(),
                "{}.{name} lacks a type",
                spec.name
            );
        }
        let required = params["required"].as_array().expect("required");
        for field in required {
            let field = field.as_str().expect("string");
            assert!(
                props.contains_key(field),
                "{}: {field} not in properties",
                spec.name
            );
        }
        assert!(!spec.description.is_empty());
        assert!(!matches!(params["required"], Value::Null));
    }
}

/// Every place in `schema` that a provider-friendly schema must not have, as JSON-pointer-like
/// paths: meta keys, definitions, references, formats, alternatives and `null` types.
fn unfriendly(schema: &Value, path: &str, found: &mut Vec<String>) {
    const FORBIDDEN: [&str; 8] = [
        "$schema",
        "title",
        "$defs",
        "definitions",
        "$ref",
        "format",
        "anyOf",
        "oneOf",
    ];
    match schema {
        Value::Object(obj) => {
            for (key, value) in obj {
                let here = format!("{path}/{key}");
                if FORBIDDEN.contains(&key.as_str()) {
                    found.push(here.clone());
                }
                if key == "type" && !value.is_string() {
                    found.push(format!("{here} (not a single type)"));
                }
                let is_null = |v: &Value| v.is_null() || v == "null";
                let nullable = match value {
                    Value::Array(values) => values.iter().any(is_null),
                    v => key == "type" && is_null(v),
                };
                if (key == "type" || key == "enum") && nullable {
                    found.push(format!("{here} (null)"));
                }
                if key == "properties" {
                    // Its keys are argument names, not schema keywords.
                    for (name, prop) in value.as_object().into_iter().flatten() {
                        unfriendly(prop, &format!("{here}/{name}"), found);
                    }
                } else {
                    unfriendly(value, &here, found);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                unfriendly(item, &format!("{path}/{i}"), found);
            }
        }
        _ => {}
    }
}

#[test]
fn every_schema_is_provider_friendly() {
    for spec in ToolSet::builtin().specs() {
        let mut found = Vec::new();
        unfriendly(&spec.parameters, "", &mut found);
        assert!(found.is_empty(), "{}: {found:?}", spec.name);
    }
    // The walk does catch what schemars emits by default.
    let mut found = Vec::new();
    unfriendly(
        &json!({"$schema": "x", "title": "Args", "properties": {"title": {"type": ["string", "null"], "format": "uint64"}}}),
        "",
        &mut found,
    );
    assert_eq!(
        found,
        [
            "/$schema",
            "/title",
            "/properties/title/type (not a single type)",
            "/properties/title/type (null)",
            "/properties/title/format"
        ]
    );
}

#[test]
fn read_file_parameters_are_what_was_written_by_hand() {
    let spec = ToolSet::builtin()
        .get("read_file")
        .expect("read_file")
        .spec();
    assert_eq!(
        spec.parameters,
        json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string"},
                "offset": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "First line, 1-based."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Default 2000."
                }
            },
            "required": ["file_path"]
        })
    );
}

#[test]
fn limits_and_choices_come_from_the_argument_types() {
    let set = ToolSet::builtin();
    let params = |tool: &str| set.get(tool).expect(tool).parameters();
    for tool in ["bash", "run_command"] {
        let timeout = &params(tool)["properties"]["timeout"];
        assert_eq!(
            (&timeout["minimum"], &timeout["maximum"]),
            (&json!(1), &json!(600)),
            "{tool}"
        );
    }
    assert_eq!(params("grep")["properties"]["max_results"]["maximum"], 1000);
    assert_eq!(
        params("glob")["properties"]["max_results"]["maximum"],
        10_000
    );
    let todo = params("todo");
    assert_eq!(
        todo["properties"]["action"]["enum"],
        json!(["add", "update", "list", "clear"])
    );
    assert_eq!(
        todo["properties"]["status"]["enum"],
        json!(["pending", "in_progress", "completed"])
    );
    assert_eq!(todo["required"], json!(["action"]));
    let bash = params("bash");
    // Accepted in a call (bash_tests), never offered: it is not used.
    assert!(bash["properties"].get("description").is_none(), "{bash}");
    assert_eq!(bash["required"], json!(["command"]));
    assert_eq!(params("list_dir")["required"], json!([]));
}
