//! Tests of the Gemini request body.

use super::*;
use pretty_assertions::assert_eq;
use tunacode_protocol::{RetryPromptPart, ToolSpec};

fn signed(mut part: Part, signature: &str) -> Part {
    let details = json!({"thought_signature": signature, "provider": "google"});
    match &mut part {
        Part::Text(t) => t.extra.insert("provider_details".into(), details),
        Part::ToolCall(c) => c.extra.insert("provider_details".into(), details),
        Part::Thinking(t) => t.extra.insert("provider_details".into(), details),
        _ => None,
    };
    part
}

#[test]
fn history_maps_to_contents_with_signatures_on_their_parts() {
    let request = ModelRequest {
        cache: None,
        cache_key: None,
        model: "gemini-test".into(),
        system: "be brief".into(),
        messages: vec![
            Message::user("list"),
            Message::response(vec![
                Part::thinking("hm", None),
                Part::text("Looking."),
                signed(
                    Part::tool_call("c1", "list_dir", json!({"directory": "."})),
                    "Sig+/1==",
                ),
                Part::tool_call("c2", "read_file", json!("{\"file_path\":\"a\"}")),
            ]),
            Message::request(vec![
                Part::tool_return("c1", "list_dir", "a\nb"),
                // No tool name: it is looked up from the call.
                Part::RetryPrompt(RetryPromptPart {
                    content: json!("no such file").into(),
                    tool_name: None,
                    tool_call_id: Some("c2".into()),
                    extra: Default::default(),
                }),
            ]),
            Message::from_value(json!({"thought": "legacy"})).unwrap(),
            Message::response(vec![signed(Part::text(""), "EndSig==")]),
            Message::user("next"),
            Message::user("and more"),
        ]
        .into(),
        tools: vec![].into(),
        max_output_tokens: None,
        temperature: None,
        reasoning: None,
        nudge: None,
    };
    let body = build_body(&request);
    assert_eq!(
        body,
        json!({
            "systemInstruction": {"parts": [{"text": "be brief"}]},
            "contents": [
                {"role": "user", "parts": [{"text": "list"}]},
                {"role": "model", "parts": [
                    {"text": "Looking."},
                    {"functionCall": {"name": "list_dir", "args": {"directory": "."}, "id": "c1"},
                     "thoughtSignature": "Sig+/1=="},
                    {"functionCall": {"name": "read_file", "args": {"file_path": "a"}, "id": "c2"}}
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "list_dir", "response": {"result": "a\nb"}, "id": "c1"}},
                    {"functionResponse": {"name": "read_file",
                        "response": {"error": "no such file\n\nFix the errors and try again."}, "id": "c2"}}
                ]},
                {"role": "model", "parts": [{"text": "", "thoughtSignature": "EndSig=="}]},
                {"role": "user", "parts": [{"text": "next"}, {"text": "and more"}]}
            ]
        })
    );
}

#[test]
fn unsigned_calls_get_the_placeholder_on_the_first_call_only() {
    let request = ModelRequest {
        messages: vec![
            Message::user("go"),
            Message::response(vec![
                Part::text(""),
                Part::tool_call("a", "glob", json!({})),
                Part::tool_call("b", "grep", Value::Null),
            ]),
        ]
        .into(),
        ..ModelRequest::default()
    };
    let body = build_body(&request);
    assert_eq!(
        body["contents"][1]["parts"],
        json!([
            {"functionCall": {"name": "glob", "args": {}, "id": "a"}, "thoughtSignature": SKIP_SIGNATURE},
            {"functionCall": {"name": "grep", "args": {}, "id": "b"}}
        ])
    );
    assert!(body.get("systemInstruction").is_none());
    assert!(body.get("tools").is_none());
    assert!(body.get("generationConfig").is_none());
}

#[test]
fn tools_schemas_are_cleaned_and_config_is_set() {
    let request = ModelRequest {
        messages: vec![Message::user("x")].into(),
        tools: vec![
            ToolSpec {
                name: "read_file".into(),
                description: "reads".into(),
                parameters: json!({
                    "$schema": "http://json-schema.org/draft-07/schema#",
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "file_path": {"type": "string", "description": "path"},
                        "limit": {"type": ["integer", "null"], "exclusiveMinimum": 0},
                        "mode": {"oneOf": [{"const": "a"}, {"type": "string", "additionalProperties": {}}]},
                        "tags": {"type": "array", "items": {"type": "object", "additionalProperties": false,
                                 "properties": {"additionalProperties": {"type": "string"}}}}
                    },
                    "required": ["file_path"]
                }),
            },
            ToolSpec {
                name: "noop".into(),
                description: "".into(),
                parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
            },
        ].into(),
        max_output_tokens: Some(1000),
        temperature: Some(0.5),
        reasoning: Some("high".into()),
        ..ModelRequest::default()
    };
    let body = build_body(&request);
    assert_eq!(
        body["tools"],
        json!([{"functionDeclarations": [
            {"name": "read_file", "description": "reads", "parameters": {
                "type": "object",
                "properties": {
                    "file_path": {"type": "string", "description": "path"},
                    "limit": {"type": "integer", "nullable": true},
                    "mode": {"anyOf": [{"enum": ["a"]}, {"type": "string"}]},
                    "tags": {"type": "array", "items": {"type": "object",
                             "properties": {"additionalProperties": {"type": "string"}}}}
                },
                "required": ["file_path"]
            }},
            {"name": "noop", "description": ""}
        ]}])
    );
    assert_eq!(
        body["generationConfig"],
        json!({"maxOutputTokens": 1000, "temperature": 0.5,
               "thinkingConfig": {"includeThoughts": true, "thinkingBudget": 24576}})
    );
    for (effort, budget) in [("low", Some(1024)), ("medium", Some(8192)), ("none", None)] {
        assert_eq!(thinking_budget(effort), budget, "{effort}");
    }
}
