//! Tool calls written as text, for models that do not emit structured calls (seed 000 §7.2). Tried in
//! order, the first form that yields calls wins:
//!
//! 1. tags: Qwen/Hermes `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, and Llama/Qwen-coder
//!    `<function=NAME>{…}</function>` or `<function=NAME><parameter=KEY>VALUE</parameter>…</function>`;
//! 2. JSON in fenced code blocks;
//! 3. bare JSON objects (or arrays of them) in the text.
//!
//! JSON shapes accepted: `{"tool"|"name"|"tool_name"|"function": N, "args"|"arguments"|"parameters"|
//! "input": {…}}`. In fenced and bare JSON only known tools count (other JSON is just JSON). A tag is an
//! unmistakable call: its tool is kept even when unknown, and malformed arguments are kept as text, so
//! the engine answers the model with what was wrong instead of dropping the call.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

/// A tool call found in text.
#[derive(Debug, Clone, PartialEq)]
pub struct TextToolCall {
    /// The tool's name.
    pub tool_name: String,
    /// Its arguments, or the raw text when they are not a JSON object.
    pub args: Result<Map<String, Value>, String>,
}

#[allow(clippy::unwrap_used)] // Constant patterns, exercised by the tests.
static FENCED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)```[A-Za-z]*[ \t]*\r?\n(.*?)```").unwrap());
#[allow(clippy::unwrap_used)]
static TOOL_CALL_TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)<tool_call>\s*(.*?)\s*(?:</tool_call>|$)").unwrap());
#[allow(clippy::unwrap_used)]
static FUNCTION_TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)<function=([A-Za-z0-9_.\-]+)>\s*(.*?)\s*</function>").unwrap()
});
#[allow(clippy::unwrap_used)]
static PARAMETER_TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)<parameter=([A-Za-z0-9_\-]+)>\r?\n?(.*?)\r?\n?</parameter>").unwrap()
});
#[allow(clippy::unwrap_used)]
static NAME_FIELD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#""(?:name|tool|tool_name)"\s*:\s*"([^"]+)""#).unwrap());

/// Finds tool calls in `text`; `is_tool` says which names are tools.
pub fn parse_tool_calls_from_text(text: &str, is_tool: impl Fn(&str) -> bool) -> Vec<TextToolCall> {
    let tagged = parse_tags(text);
    if !tagged.is_empty() {
        return tagged;
    }
    let mut calls = Vec::new();
    // Each pattern needs its literal marker: an answer without one never builds it (~300 KB).
    let fenced = text.contains("```").then(|| FENCED.captures_iter(text));
    for cap in fenced.into_iter().flatten() {
        if let Some(body) = cap.get(1) {
            collect_objects(body.as_str(), &is_tool, &mut calls);
        }
    }
    if calls.is_empty() {
        collect_objects(text, &is_tool, &mut calls);
    }
    calls
}

fn parse_tags(text: &str) -> Vec<TextToolCall> {
    let mut calls = Vec::new();
    let functions = text
        .contains("<function=")
        .then(|| FUNCTION_TAG.captures_iter(text));
    for cap in functions.into_iter().flatten() {
        let (name, body) = (cap[1].to_string(), cap[2].trim());
        let args = if body.starts_with('{') {
            parse_object(body)
        } else {
            Ok(parameters(body))
        };
        calls.push(TextToolCall {
            tool_name: name,
            args,
        });
    }
    if !calls.is_empty() {
        return calls;
    }
    let tagged = text
        .contains("<tool_call>")
        .then(|| TOOL_CALL_TAG.captures_iter(text));
    for cap in tagged.into_iter().flatten() {
        let body = cap[1].trim();
        if body.is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(body) {
            Ok(value) => {
                if let Some(call) = as_tool_call(&value) {
                    calls.push(call);
                }
            }
            Err(_) => {
                if let Some(name) = NAME_FIELD.captures(body) {
                    calls.push(TextToolCall {
                        tool_name: name[1].to_string(),
                        args: Err(body.to_string()),
                    });
                }
            }
        }
    }
    calls
}

/// `<parameter=k>v</parameter>` pairs; a value that is a JSON number, bool or structure is read as JSON.
fn parameters(body: &str) -> Map<String, Value> {
    PARAMETER_TAG
        .captures_iter(body)
        .map(|c| {
            let raw = c[2].to_string();
            let value = match serde_json::from_str::<Value>(raw.trim()) {
                Ok(
                    v @ (Value::Number(_) | Value::Bool(_) | Value::Array(_) | Value::Object(_)),
                ) => v,
                _ => Value::String(raw),
            };
            (c[1].to_string(), value)
        })
        .collect()
}

fn parse_object(text: &str) -> Result<Map<String, Value>, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(text.to_string()),
    }
}

/// Scans for top-level JSON objects (or arrays of them) and keeps those that call known tools.
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
                out.extend(
                    items
                        .iter()
                        .filter_map(as_tool_call)
                        .filter(|c| is_tool(&c.tool_name)),
                );
                pos = start + stream.byte_offset().max(1);
            }
            _ => pos = start + 1,
        }
    }
}

fn as_tool_call(value: &Value) -> Option<TextToolCall> {
    let obj = value.as_object()?;
    let name = ["tool", "name", "tool_name", "function"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str))?;
    let args = ["args", "arguments", "parameters", "input"]
        .iter()
        .find_map(|k| obj.get(*k))
        .cloned()
        .unwrap_or(Value::Object(Map::new()));
    let args = match args {
        Value::Object(map) => Ok(map),
        Value::String(s) => parse_object(&s),
        other => Err(other.to_string()),
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

    fn obj(v: Value) -> Result<Map<String, Value>, String> {
        Ok(v.as_object().unwrap().clone())
    }

    #[test]
    fn reads_fenced_json_blocks() {
        let text = "I'll read it.\n```json\n{\"tool\": \"read_file\", \"args\": {\"file_path\": \"a.rs\"}}\n```\n";
        let calls = parse_tool_calls_from_text(text, known);
        assert_eq!(
            calls,
            vec![TextToolCall {
                tool_name: "read_file".into(),
                args: obj(json!({"file_path": "a.rs"}))
            }]
        );
    }

    #[test]
    fn reads_bare_objects_and_arrays_in_other_shapes() {
        let text = r#"Calling {"name": "grep", "arguments": "{\"pattern\": \"fn\"}"} then [{"tool_name": "read_file", "parameters": {"file_path": "b"}}]"#;
        let calls = parse_tool_calls_from_text(text, known);
        let names: Vec<_> = calls.iter().map(|c| c.tool_name.as_str()).collect();
        assert_eq!(names, ["grep", "read_file"]);
        assert_eq!(calls[0].args, obj(json!({"pattern": "fn"})));
    }

    #[test]
    fn reads_qwen_tool_call_tags() {
        let text = "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"file_path\": \"src/lib.rs\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"grep\", \"arguments\": {\"pattern\": \"x\"}}\n</tool_call>";
        let calls = parse_tool_calls_from_text(text, known);
        assert_eq!(
            calls,
            vec![
                TextToolCall {
                    tool_name: "read_file".into(),
                    args: obj(json!({"file_path": "src/lib.rs"}))
                },
                TextToolCall {
                    tool_name: "grep".into(),
                    args: obj(json!({"pattern": "x"}))
                },
            ]
        );
    }

    #[test]
    fn reads_hermes_and_llama_function_tags() {
        let json_form = "<function=read_file>{\"file_path\": \"a.txt\", \"limit\": 5}</function>";
        assert_eq!(
            parse_tool_calls_from_text(json_form, known),
            vec![TextToolCall {
                tool_name: "read_file".into(),
                args: obj(json!({"file_path": "a.txt", "limit": 5}))
            }]
        );
        let xml_form = "<function=grep>\n<parameter=pattern>\nfn main\n</parameter>\n<parameter=max_results>\n10\n</parameter>\n</function>";
        assert_eq!(
            parse_tool_calls_from_text(xml_form, known),
            vec![TextToolCall {
                tool_name: "grep".into(),
                args: obj(json!({"pattern": "fn main", "max_results": 10}))
            }]
        );
    }

    #[test]
    fn malformed_tagged_json_is_kept_as_text_to_report() {
        let text = "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"file_path\": \"a.txt\"</tool_call>";
        let calls = parse_tool_calls_from_text(text, known);
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].tool_name, "read_file");
        assert!(
            calls[0]
                .args
                .as_ref()
                .unwrap_err()
                .contains("\"file_path\": \"a.txt\"")
        );
        let bad_args = "<function=read_file>{\"file_path\": }</function>";
        assert!(parse_tool_calls_from_text(bad_args, known)[0].args.is_err());
    }

    #[test]
    fn ignores_unknown_tools_in_plain_json_and_prose() {
        assert!(parse_tool_calls_from_text(r#"{"tool": "rm_rf", "args": {}}"#, known).is_empty());
        assert!(parse_tool_calls_from_text(r#"config: {"a": 1} and {broken"#, known).is_empty());
        assert!(parse_tool_calls_from_text("no json here", known).is_empty());
    }
}
