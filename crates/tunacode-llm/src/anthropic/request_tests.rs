//! Tests of the Messages request body.

use super::*;

/// The body without its cache breakpoints (checked on their own below), as a string system.
fn without_cache_marks(body: Value) -> Value {
    let mut body = tunacode_testkit::without_key(&body, "cache_control");
    if let Some(text) = body["system"][0]["text"].as_str().map(str::to_string) {
        body["system"] = json!(text);
    }
    body
}

#[test]
fn four_cache_breakpoints_cover_system_tools_and_the_last_two_user_turns() {
    let request = ModelRequest {
        model: "claude-test".into(),
        system: "sys".into(),
        messages: vec![
            Message::user("one"),
            Message::response(vec![Part::tool_call("c1", "read_file", json!({}))]),
            Message::request(vec![Part::tool_return("c1", "read_file", "A")]),
            Message::response(vec![Part::tool_call("c2", "read_file", json!({}))]),
            Message::request(vec![Part::tool_return("c2", "read_file", "B")]),
        ]
        .into(),
        tools: vec![
            ToolSpec {
                name: "a".into(),
                description: "a".into(),
                parameters: json!({"type": "object"}),
            },
            ToolSpec {
                name: "b".into(),
                description: "b".into(),
                parameters: json!({"type": "object"}),
            },
        ]
        .into(),
        ..ModelRequest::default()
    };
    let body = build_body(&request);
    let marks = body.to_string().matches("cache_control").count();
    assert_eq!(marks, 4, "{body}");
    let ephemeral = json!({"type": "ephemeral"});
    assert_eq!(body["system"][0]["cache_control"], ephemeral);
    assert!(body["tools"][0].get("cache_control").is_none());
    assert_eq!(body["tools"][1]["cache_control"], ephemeral);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[4]["content"][0]["cache_control"], ephemeral);
    // With the call's note on the newest turn, its breakpoint sits on the block before the
    // note: what this call writes to the cache is what the next one (without the note) reads.
    let nudged = build_body(&ModelRequest {
        nudge: Some("# Current todos".into()),
        ..request.clone()
    });
    let newest = nudged["messages"][4]["content"].as_array().unwrap();
    assert_eq!(newest.len(), 2, "{nudged}");
    assert_eq!(newest[0]["cache_control"], ephemeral);
    assert!(newest[1].get("cache_control").is_none(), "{nudged}");
    assert_eq!(nudged.to_string().matches("cache_control").count(), 4);
    assert_eq!(messages[2]["content"][0]["cache_control"], ephemeral);
    assert!(messages[0]["content"][0].get("cache_control").is_none());
}
use pretty_assertions::assert_eq;
use tunacode_protocol::ToolSpec;

fn anthropic_thinking(text: &str, sig: &str) -> Part {
    let mut part = ThinkingPart {
        content: text.into(),
        signature: Some(sig.into()),
        extra: Default::default(),
    };
    part.extra
        .insert("provider_details".into(), json!({"provider": "anthropic"}));
    Part::Thinking(part)
}

#[test]
fn history_maps_to_alternating_messages_with_paired_tool_results() {
    let mut redacted = ThinkingPart {
        content: String::new(),
        signature: None,
        extra: Default::default(),
    };
    redacted.extra.insert(
        "provider_details".into(),
        json!({"provider": "anthropic", "redacted_data": "EqQBCg=="}),
    );
    let request = ModelRequest {
        cache: None,
        cache_key: None,
        model: "claude-test".into(),
        system: "be brief".into(),
        messages: vec![
            Message::request(vec![Part::system_prompt("old"), Part::user_prompt("list")]),
            Message::response(vec![
                Part::thinking("openai reasoning", Some("enc".into())),
                anthropic_thinking("hm", "sig/+="),
                Part::Thinking(redacted),
                Part::text(""),
                Part::text("Looking."),
                Part::tool_call("c1", "list_dir", json!({"directory": "."})),
                Part::tool_call("c2", "read_file", json!("{\"file_path\":\"a\"}")),
                Part::tool_call("c3", "glob", json!("{broken")),
            ]),
            Message::request(vec![
                Part::tool_return("c1", "list_dir", "a\nb"),
                Part::retry_prompt("c2", "read_file", "no such file"),
            ]),
            Message::request(vec![
                Part::user_prompt("also this"),
                Part::tool_return("c3", "glob", "x.rs"),
            ]),
            Message::from_value(json!({"thought": "legacy"})).unwrap(),
            Message::response(vec![Part::thinking("only foreign", None)]),
            Message::user("next"),
        ]
        .into(),
        tools: vec![ToolSpec {
            name: "list_dir".into(),
            description: "lists".into(),
            parameters: json!({"type": "object", "properties": {}}),
        }]
        .into(),
        max_output_tokens: None,
        temperature: Some(0.2),
        reasoning: None,
        nudge: None,
    };
    let body = without_cache_marks(build_body(&request));
    assert_eq!(
        body,
        json!({
            "model": "claude-test",
            "max_tokens": 16384,
            "system": "be brief",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "list"}]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "sig/+="},
                    {"type": "redacted_thinking", "data": "EqQBCg=="},
                    {"type": "text", "text": "Looking."},
                    {"type": "tool_use", "id": "c1", "name": "list_dir", "input": {"directory": "."}},
                    {"type": "tool_use", "id": "c2", "name": "read_file", "input": {"file_path": "a"}},
                    {"type": "tool_use", "id": "c3", "name": "glob", "input": {}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": "a\nb"},
                    {"type": "tool_result", "tool_use_id": "c2",
                     "content": "no such file\n\nFix the errors and try again.", "is_error": true},
                    {"type": "tool_result", "tool_use_id": "c3", "content": "x.rs"},
                    {"type": "text", "text": "also this"},
                    {"type": "text", "text": "next"}
                ]}
            ],
            "stream": true,
            "tools": [{"name": "list_dir", "description": "lists",
                       "input_schema": {"type": "object", "properties": {}}}],
            "temperature": 0.2
        })
    );
}

#[test]
fn reasoning_effort_enables_thinking_with_room_for_the_answer() {
    let mut request = ModelRequest {
        model: "m".into(),
        messages: vec![Message::user("hi")].into(),
        temperature: Some(0.5),
        reasoning: Some("low".into()),
        ..Default::default()
    };
    let body = build_body(&request);
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 2048})
    );
    assert_eq!(body["max_tokens"], json!(16384));
    assert!(body.get("temperature").is_none());
    assert!(body.get("system").is_none() && body.get("tools").is_none());

    request.reasoning = Some("High".into());
    let body = build_body(&request);
    assert_eq!(body["thinking"]["budget_tokens"], json!(24576));
    assert_eq!(body["max_tokens"], json!(24576 + 4096));

    request.reasoning = Some("medium".into());
    request.max_output_tokens = Some(1000);
    let body = build_body(&request);
    assert_eq!(body["thinking"]["budget_tokens"], json!(8192));
    assert_eq!(body["max_tokens"], json!(8192 + 4096));

    request.reasoning = Some("none".into());
    let body = build_body(&request);
    assert!(body.get("thinking").is_none());
    assert_eq!(body["max_tokens"], json!(1000));
    assert_eq!(body["temperature"], json!(0.5f32));
}

#[test]
fn unsigned_or_foreign_thinking_is_dropped_and_retry_without_id_is_user_text() {
    let mut unsigned = anthropic_thinking("cut short", "");
    if let Part::Thinking(t) = &mut unsigned {
        t.signature = None;
    }
    let request = ModelRequest {
        model: "m".into(),
        messages: vec![
            Message::user("a"),
            Message::response(vec![unsigned, Part::text("answer")]),
            Message::request(vec![Part::RetryPrompt(
                tunacode_protocol::RetryPromptPart {
                    content: json!("say it again").into(),
                    tool_name: None,
                    tool_call_id: None,
                    extra: Default::default(),
                },
            )]),
        ]
        .into(),
        ..Default::default()
    };
    assert_eq!(
        without_cache_marks(build_body(&request))["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "a"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "answer"}]},
            {"role": "user", "content": [
                {"type": "text", "text": "say it again\n\nFix the errors and try again."}
            ]}
        ])
    );
}
