//! Sub-agents on screen: the parent's `task` cell follows each one live, the status line counts
//! the running ones with their spend, and a sub-agent's question says who asks.

use insta::assert_snapshot;
use serde_json::json;
use tunacode_protocol::runtime::{
    ApprovalQuestion, Question, QuestionKind, RuntimeEvent, SessionScope, SubagentChange,
    SubagentLabel, SubagentReport, SubagentStatus, SubagentUpdate,
};
use tunacode_protocol::{AgentEvent, ToolKind, Usage};

use crate::app::state::App;
use crate::app::view_tests::{draw, test_app};

fn label(id: &str, description: &str) -> SubagentLabel {
    SubagentLabel {
        parent_tool_call_id: id.into(),
        agent_type: "explore".into(),
        description: description.into(),
    }
}

fn update(app: &mut App, id: &str, description: &str, change: SubagentChange) {
    app.on_runtime_event(RuntimeEvent::Subagent(Box::new(SubagentUpdate {
        label: label(id, description),
        change,
    })));
}

fn start_task(app: &mut App, id: &str, description: &str) {
    app.on_agent_event(AgentEvent::ToolCallStarted {
        tool_call_id: id.into(),
        tool_name: "task".into(),
        args: json!({"description": description, "prompt": "…", "subagent_type": "explore"}),
        kind: ToolKind::ReadOnly,
    });
    let started = SubagentChange::Started {
        session_id: "0123456789".into(),
        model: "openai:m".into(),
        worktree: None,
    };
    update(app, id, description, started);
}

/// `screen` with every elapsed time (`0.1s`) written `N.Ns`.
fn timeless(screen: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = screen.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let digits = chars[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let rest = &chars[i + digits..];
        if digits > 0
            && rest.len() >= 3
            && rest[0] == '.'
            && rest[1].is_ascii_digit()
            && rest[2] == 's'
        {
            out.push_str("N.Ns");
            i += digits + 3;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

fn spent(cost: f64) -> SubagentChange {
    let total = Usage {
        request_tokens: 1200,
        response_tokens: 300,
        cost,
        ..Usage::default()
    };
    SubagentChange::Event(AgentEvent::UsageUpdated {
        last_call: total,
        session_total: total,
    })
}

#[tokio::test]
async fn each_task_cell_follows_its_sub_agent_and_the_status_line_counts_them_with_their_spend() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    start_task(&mut app, "t1", "find the parser");
    start_task(&mut app, "t2", "list the tests");
    let read = AgentEvent::ToolCallStarted {
        tool_call_id: "c1".into(),
        tool_name: "read_file".into(),
        args: json!({"file_path": "src/parse.rs"}),
        kind: ToolKind::ReadOnly,
    };
    update(
        &mut app,
        "t1",
        "find the parser",
        SubagentChange::Event(read),
    );
    let text = AgentEvent::TextDelta {
        text: "The parser is in src/parse.rs.".into(),
    };
    update(
        &mut app,
        "t1",
        "find the parser",
        SubagentChange::Event(text),
    );
    update(&mut app, "t1", "find the parser", spent(0.0125));
    update(&mut app, "t2", "list the tests", spent(0.0031));
    // The elapsed times are the test's own.
    let screen = draw(&mut app, 80, 16);
    assert_snapshot!("subagents_running_80x16", timeless(&screen));

    let report = SubagentReport {
        label: label("t2", "list the tests"),
        session_id: "0123456789".into(),
        model: "openai:m".into(),
        status: SubagentStatus::Done,
        answer: "Three test files.".into(),
        error: None,
        files_read: Vec::new(),
        files_changed: Vec::new(),
        commands: Vec::new(),
        usage: Usage::default(),
        duration_ms: 2400,
        diff: String::new(),
        diff_outcome: None,
    };
    let finished = SubagentChange::Finished(Box::new(report));
    update(&mut app, "t2", "list the tests", finished);
    let screen = draw(&mut app, 80, 16);
    assert!(screen.contains("⧉ 1 agent $0.0125"), "{screen}");
    assert!(screen.contains("explore done after 2.4s"), "{screen}");
}

#[tokio::test]
async fn a_sub_agent_s_question_says_which_sub_agent_asks() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    app.on_runtime_event(RuntimeEvent::Question(Question {
        id: "q1".into(),
        kind: QuestionKind::Approval(ApprovalQuestion {
            tool_call_id: "c9".into(),
            tool_name: "bash".into(),
            args: json!({"command": "cargo test"}),
            kind: ToolKind::Execute,
            preview: Some("cargo test".into()),
            reason: "it runs a command".into(),
            scope: SessionScope::CommandPrefix(vec!["cargo".into(), "test".into()]),
            once_only: false,
            hunks: 0,
            subagent: Some(Box::new(label("t1", "run the tests"))),
        }),
    }));
    let screen = draw(&mut app, 80, 20);
    assert!(
        screen.contains("The sub-agent explore: run the tests wants to run bash"),
        "{screen}"
    );
}
