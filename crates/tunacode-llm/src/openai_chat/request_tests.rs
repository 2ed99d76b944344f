//! The Chat Completions request body.

use super::*;
use pretty_assertions::assert_eq;
use tunacode_protocol::ToolSpec;

#[test]
fn history_maps_to_chat_messages() {
    let request = ModelRequest {
        cache: None,
        cache_key: None,
        model: "gpt-test".into(),
        system: "be brief".into(),
        messages: vec![
            Message::user("list"),
            Message::response(vec![
                Part::thinking("hm", None),
                Part::text("Looking."),
                Part::tool_call("c1", "list_dir", json!({"directory": "."})),
                Part::tool_call("c2", "read_file", json!("{\"file_path\":\"a\"}")),
            ]),
            Message::request(vec![
                Part::tool_return("c1", "list_dir", "a\nb"),
                Part::retry_prompt("c2", "read_file", "no such file"),
            ]),
            Message::from_value(json!({"thought": "legacy"})).unwrap(),
        ]
        .into(),
        tools: vec![ToolSpec {
            name: "list_dir".into(),
            description: "lists".into(),
            parameters: json!({"type": "object", "properties": {}}),
        }]
        .into(),
        max_output_tokens: Some(100),
        temperature: None,
        reasoning: None,
        nudge: None,
    };
    let body = build_body(&request, ChatDialect::default());
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "list"},
            {"role": "assistant", "content": "Looking.", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "list_dir", "arguments": "{\"directory\":\".\"}"}},
                {"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": "{\"file_path\":\"a\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "c1", "content": "a\nb"},
            {"role": "tool", "tool_call_id": "c2", "content": "no such file\n\nFix the errors and try again."}
        ])
    );
    assert_eq!(body["stream"], json!(true));
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["tools"][0]["function"]["name"], json!("list_dir"));
    assert_eq!(body["max_tokens"], json!(100));
    assert!(body.get("temperature").is_none());
}

#[test]
fn the_session_goes_as_the_prompt_cache_key_when_set() {
    let mut request = ModelRequest {
        model: "gpt-test".into(),
        messages: vec![tunacode_protocol::Message::user("hi")].into(),
        ..ModelRequest::default()
    };
    let body = build_body(&request, ChatDialect::default());
    assert!(body.get("prompt_cache_key").is_none());
    request.cache_key = Some("session-1".into());
    let body = build_body(&request, ChatDialect::default());
    assert_eq!(body["prompt_cache_key"], serde_json::json!("session-1"));
}

#[test]
fn claude_through_openrouter_gets_a_cache_breakpoint_on_the_system_prompt() {
    let request = ModelRequest {
        model: "anthropic/claude-sonnet-4.5".into(),
        system: "SYSTEM".into(),
        messages: vec![tunacode_protocol::Message::user("hi")].into(),
        ..ModelRequest::default()
    };
    let openrouter = ChatDialect {
        openrouter: true,
        images: true,
    };
    let body = build_body(&request, openrouter);
    assert_eq!(
        body["messages"][0]["content"][0],
        json!({"type": "text", "text": "SYSTEM", "cache_control": {"type": "ephemeral"}})
    );
    let other = ModelRequest {
        model: "openai/gpt-4.1".into(),
        ..request.clone()
    };
    assert_eq!(
        build_body(&other, openrouter)["messages"][0]["content"],
        json!("SYSTEM")
    );
    assert_eq!(
        build_body(&request, ChatDialect::default())["messages"][0]["content"],
        json!("SYSTEM")
    );
}

#[test]
fn claude_through_openrouter_marks_the_last_two_requests_and_not_older_ones_or_the_note() {
    use tunacode_protocol::{Message, Part};
    let history = vec![
        Message::user("first"),
        Message::response(vec![Part::tool_call("c1", "list_dir", json!({}))]),
        Message::request(vec![Part::tool_return("c1", "list_dir", "a.txt")]),
        Message::response(vec![Part::tool_call("c2", "read_file", json!({}))]),
        Message::request(vec![Part::tool_return("c2", "read_file", "alpha")]),
    ];
    let request = ModelRequest {
        model: "anthropic/claude-sonnet-4.5".into(),
        system: "SYSTEM".into(),
        messages: history.into(),
        nudge: Some("# Current todos".into()),
        cache: Some(std::sync::Arc::new(
            crate::message_cache::MessageCache::new(),
        )),
        ..ModelRequest::default()
    };
    let dialect = ChatDialect {
        openrouter: true,
        images: true,
    };
    let marked = |body: &Value| -> Vec<usize> {
        let messages = body["messages"].as_array().unwrap();
        (0..messages.len())
            .filter(|&i| messages[i].to_string().contains("cache_control"))
            .collect()
    };
    let body = build_body(&request, dialect);
    // The system prompt, then the last two tool results; not the first prompt, not the note.
    assert_eq!(marked(&body), [0, 3, 5], "{body}");
    assert_eq!(body["messages"][5]["content"][0]["text"], "alpha");
    assert_eq!(body["messages"][6]["content"], "# Current todos");
    // The same request again (its messages now in the cache) marks the same ones.
    assert_eq!(marked(&build_body(&request, dialect)), [0, 3, 5]);
}
