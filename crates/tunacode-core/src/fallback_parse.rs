//! Tool calls written as text, for models that do not emit structured calls (seed 000 §7.2): JSON in a
//! fenced code block, and bare JSON objects, naming a known tool. Accepted shapes:
//! `{"tool": N, "args": {…}}`, `{"name": N, "arguments": {…}}`, `{"tool_name": N, "parameters": {…}}`.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

/// A tool call found in text.
#[derive(Debug, Clone, PartialEq)]
pub struct TextToolCall {
    /// The tool's name.
    pub tool_name: String,
    /// Its arguments.
    pub args: Map<String, Value>,
}

static FENCED: LazyLock<Regex> = LazyLock::new(|| {
    #[allow(clippy::unwrap_used)] // A constant pattern, checked by the tests.
    Regex::new(r"(?s)```[A-Za-z]*[ \t]*\r?\n(.*?)```").unwrap()
});

/// Finds tool calls in `text`, keeping only names for which `is_tool` is true.
pub fn parse_tool_calls_from_text(text: &str, is_tool: impl Fn(&str) -> bool) -> Vec<TextToolCall> {
    let mut calls = Vec::new();
    for cap in FENCED.captures_iter(text) {
        if let Some(body) = cap.get(1) {
            collect_objects(body.as_str(), &is_tool, &mut calls);
        }
    }
    if calls.is_empty() {
        collect_objects(text, &is_tool, &mut calls);
    }
    calls
}

/// Scans for top-level JSON objects (or arrays of them) and keeps those that are tool calls.
fn collect_objects(text: &str, is_tool: &impl Fn(&str) -> bool, out: &mut Vec<TextToolCall>) {
    let mut pos = 0;
    while let Some(offset) = text[pos..].find(['{', '[']) {
        let start = pos + offset;
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(value)) => {
                let items = match value {
                    Value::Array(items) => items,
                    other => vec![other],
                };
                for item in items {
                    if let Some(call) = as_tool_call(&item, is_tool) {
                        out.push(call);
                    }
                }
                pos = start + stream.byte_offset().max(1);
            }
            _ => pos = start + 1,
        }
    }
}

fn as_tool_call(value: &Value, is_tool: &impl Fn(&str) -> bool) -> Option<TextToolCall> {
    let obj = value.as_object()?;
    let name = ["tool", "name", "tool_name", "function"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str))?;
    if !is_tool(name) {
        return None;
    }
    let args = ["args", "arguments", "parameters", "input"]
        .iter()
        .find_map(|k| obj.get(*k))
        .cloned()
        .unwrap_or(Value::Object(Map::new()));
    let args = match args {
        Value::Object(map) => map,
        Value::String(s) => match serde_json::from_str(&s) {
            Ok(Value::Object(map)) => map,
            _ => return None,
        },
        _ => return None,
    };
    Some(TextToolCall {
        tool_name: name.to_string(),
        args,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn known(name: &str) -> bool {
        matches!(name, "read_file" | "grep")
    }

    #[test]
    fn reads_fenced_json_blocks() {
        let text = "I'll read it.\n```json\n{\"tool\": \"read_file\", \"args\": {\"file_path\": \"a.rs\"}}\n```\n";
        let calls = parse_tool_calls_from_text(text, known);
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].tool_name, "read_file");
        assert_eq!(
            Value::Object(calls[0].args.clone()),
            json!({"file_path": "a.rs"})
        );
    }

    #[test]
    fn reads_bare_objects_and_arrays_in_other_shapes() {
        let text = r#"Calling {"name": "grep", "arguments": "{\"pattern\": \"fn\"}"} then [{"tool_name": "read_file", "parameters": {"file_path": "b"}}]"#;
        let calls = parse_tool_calls_from_text(text, known);
        let names: Vec<_> = calls.iter().map(|c| c.tool_name.as_str()).collect();
        assert_eq!(names, ["grep", "read_file"]);
        assert_eq!(calls[0].args["pattern"], json!("fn"));
    }

    #[test]
    fn ignores_unknown_tools_plain_json_and_prose() {
        assert!(parse_tool_calls_from_text(r#"{"tool": "rm_rf", "args": {}}"#, known).is_empty());
        assert!(parse_tool_calls_from_text(r#"config: {"a": 1} and {broken"#, known).is_empty());
        assert!(parse_tool_calls_from_text("no json here", known).is_empty());
    }
}
