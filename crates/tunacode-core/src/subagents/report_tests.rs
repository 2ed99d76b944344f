//! What a sub-agent's conversation touched, and the text its parent gets.

use serde_json::json;
use tunacode_protocol::runtime::{SubagentLabel, SubagentReport, SubagentStatus};
use tunacode_protocol::{Message, Part, Usage};
use tunacode_tools::{ToolSet, Workspace};

use super::{model_text, touched};

fn response(parts: Vec<Part>) -> Message {
    Message::response(parts)
}

#[test]
fn only_answered_calls_count_and_the_texts_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::new(dir.path());
    let messages = vec![
        response(vec![
            Part::text("Looking."),
            Part::tool_call("c1", "read_file", json!({"file_path": "src/a.rs"})),
            Part::tool_call("c2", "bash", json!({"command": "git log -3"})),
            Part::tool_call(
                "c3",
                "write_file",
                json!({"file_path": "b.txt", "content": "x"}),
            ),
            Part::tool_call("c4", "read_file", json!({"file_path": "never.rs"})),
        ]),
        Message::request(vec![
            Part::tool_return("c1", "read_file", "…"),
            Part::tool_return("c2", "bash", "…"),
            Part::tool_return("c3", "write_file", "ok"),
        ]),
        response(vec![Part::text("Found it in src/a.rs.")]),
    ];
    let found = touched(&messages, &ToolSet::builtin(), &workspace);
    assert_eq!(found.read, ["src/a.rs"], "c4 was never answered");
    assert_eq!(found.commands, ["git log -3"]);
    assert_eq!(found.changed, ["b.txt"]);
    assert_eq!(found.text, "Looking.\n\nFound it in src/a.rs.");
}

#[test]
fn the_parent_is_told_how_it_ended_what_it_touched_and_what_it_wrote_before_it_stopped() {
    let report = SubagentReport {
        label: SubagentLabel {
            parent_tool_call_id: "call_1".into(),
            agent_type: "explore".into(),
            description: "find the parser".into(),
        },
        session_id: "s1".into(),
        model: "openai:m".into(),
        status: SubagentStatus::Error,
        answer: "The parser is in src/parse.rs".into(),
        error: Some("the provider failed".into()),
        files_read: vec!["src/parse.rs".into()],
        files_changed: Vec::new(),
        commands: vec!["ls src".into()],
        usage: Usage {
            request_tokens: 120,
            response_tokens: 30,
            ..Usage::default()
        },
        duration_ms: 1500,
        diff: String::new(),
        diff_outcome: None,
    };
    let text = model_text(&report);
    assert!(
        text.starts_with(
            "Sub-agent `explore` (find the parser) ended: error. 1.5 s, 120 tokens in, 30 out"
        ),
        "{text}"
    );
    assert!(
        text.contains("It stopped early: the provider failed"),
        "{text}"
    );
    assert!(
        text.contains("Files read: src/parse.rs\nFiles changed: none\nCommands run: ls src"),
        "{text}"
    );
    assert!(
        text.ends_with("What it wrote before it stopped:\nThe parser is in src/parse.rs"),
        "{text}"
    );
}
