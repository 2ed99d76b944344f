//! Snapshot tests of what the UI draws (ratatui's `TestBackend` + insta), at 80×24 and narrower.

use std::sync::Arc;

use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use tokio::sync::oneshot;
use tunacode_core::{ApprovalRequest, ProgressReport};
use tunacode_llm::models::ModelRegistry;
use tunacode_llm::{ModelId, ProviderSettings};
use tunacode_protocol::{AgentEvent, NoticeLevel, TodoItem, TodoStatus, ToolStatus, Usage};
use tunacode_store::Paths;
use tunacode_tools::ToolKind;

use crate::app::dialogs::Dialog;
use crate::app::picker::{Picker, PickerItem, PickerKind};
use crate::app::state::App;
use crate::app::{Channels, build_app};
use crate::{RunSettings, TuiConfig};

/// An app in a temp home, with the volatile parts of the status line pinned.
pub fn test_app(dir: &std::path::Path) -> (App, Channels) {
    let paths = Paths {
        config_file: dir.join("config/tunacode.json"),
        sessions_dir: dir.join("data/tunacode/sessions"),
        log_dir: dir.join("state"),
        models_cache: dir.join("data/tunacode/models.json"),
    };
    let cwd = dir.join("ws");
    std::fs::create_dir_all(&cwd).unwrap();
    let resolve = Arc::new(|model: Option<&str>| {
        let id = ModelId::parse(model.unwrap_or("openai:gpt-4.1")).map_err(|e| e.to_string())?;
        let provider = ProviderSettings::for_model(&id, Some("http://127.0.0.1:9/v1".into()), None)
            .map_err(|e| e.to_string())?;
        let mut options = crate::app::tests_support::options();
        options.model = id.to_string();
        Ok(RunSettings {
            options,
            provider,
            context_window: Some(128_000),
        })
    });
    let config = TuiConfig {
        cwd,
        paths,
        resolve,
        registry: ModelRegistry::bundled(),
        session: None,
        theme: "plain".into(),
        force_setup: false,
        tool_ignore: vec![],
        show_thoughts: false,
    };
    let (mut app, ch) = build_app(config);
    app.status.session_id = "5e55104d".into();
    app.status.cwd = "~/proj".into();
    app.status.branch = Some("main".into());
    (app, ch)
}

fn draw(app: &mut App, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| app.draw(f)).unwrap();
    format!("{}", terminal.backend())
}

fn conversation(app: &mut App) {
    app.on_agent_event(AgentEvent::RequestStarted {
        request_id: "r".into(),
        model: "openai:gpt-4.1".into(),
        session_id: "5e55104d".into(),
    });
    app.transcript.push(crate::app::transcript::CellKind::User(
        "fix the failing test in src/lib.rs".into(),
    ));
    app.on_agent_event(AgentEvent::TextDelta {
        text: "Let me look at the **test** first.\n\n- read `src/lib.rs`\n- run the tests".into(),
    });
    app.on_agent_event(AgentEvent::ToolCallStarted {
        tool_call_id: "c1".into(),
        tool_name: "read_file".into(),
        args: json!({"file_path": "src/lib.rs"}),
    });
    app.on_agent_event(AgentEvent::ToolCallFinished {
        tool_call_id: "c1".into(), tool_name: "read_file".into(), args: json!({"file_path": "src/lib.rs"}),
        result: "     1\tpub fn add(a: i32, b: i32) -> i32 {\n     2\t    a - b\n     3\t}\n     4\t\n     5\t#[test]\n     6\tfn adds() {}".into(),
        duration_ms: 4, status: ToolStatus::Completed, diff: None,
    });
    app.on_agent_event(AgentEvent::ToolCallStarted {
        tool_call_id: "c2".into(),
        tool_name: "update_file".into(),
        args: json!({"file_path": "src/lib.rs"}),
    });
    app.on_agent_event(AgentEvent::ToolCallFinished {
        tool_call_id: "c2".into(), tool_name: "update_file".into(), args: json!({"file_path": "src/lib.rs"}),
        result: "Updated `src/lib.rs` (+1 -1 lines).".into(), duration_ms: 1200, status: ToolStatus::Completed,
        diff: Some("--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n pub fn add(a: i32, b: i32) -> i32 {\n-    a - b\n+    a + b\n }\n".into()),
    });
    app.on_agent_event(AgentEvent::ToolCallStarted {
        tool_call_id: "c3".into(),
        tool_name: "bash".into(),
        args: json!({"command": "cargo test"}),
    });
    app.on_agent_event(AgentEvent::ToolCallFinished {
        tool_call_id: "c3".into(),
        tool_name: "bash".into(),
        args: json!({"command": "cargo test"}),
        result: "exit code: 101\nstderr:\nerror: could not compile".into(),
        duration_ms: 2500,
        status: ToolStatus::Failed,
        diff: None,
    });
    app.on_agent_event(AgentEvent::Notice {
        level: NoticeLevel::Warning,
        message: "rate limited; retrying in 1.0s (attempt 1)".into(),
    });
    app.on_agent_event(AgentEvent::UsageUpdated {
        last_call: Usage {
            request_tokens: 12_800,
            response_tokens: 300,
            ..Usage::default()
        },
        session_total: Usage {
            request_tokens: 25_000,
            response_tokens: 900,
            cost: 0.0571,
            ..Usage::default()
        },
    });
    app.on_agent_event(AgentEvent::RequestFinished {
        reason: tunacode_protocol::FinishReason::Answered,
        iterations: 3,
        response: String::new(),
    });
}

#[tokio::test]
async fn chat_screen_with_tools_diff_and_status() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path());
    conversation(&mut app);
    assert_snapshot!("chat_80x24", draw(&mut app, 80, 24));
    assert_snapshot!("chat_60x30_narrow", draw(&mut app, 60, 30));
}

#[tokio::test]
async fn expanded_tools_todos_and_scrolled_view() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path());
    conversation(&mut app);
    app.expand_tools = true;
    app.on_agent_event(AgentEvent::TodosUpdated {
        items: vec![
            TodoItem {
                id: 1,
                content: "read the test".into(),
                status: TodoStatus::Completed,
            },
            TodoItem {
                id: 2,
                content: "fix add()".into(),
                status: TodoStatus::InProgress,
            },
            TodoItem {
                id: 3,
                content: "run cargo test".into(),
                status: TodoStatus::Pending,
            },
        ],
    });
    app.transcript.scroll(5);
    assert_snapshot!("expanded_todos_scrolled_80x30", draw(&mut app, 80, 30));
}

#[tokio::test]
async fn approval_dialog_with_diff_and_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path());
    let (reply, _rx) = oneshot::channel();
    let request = ApprovalRequest {
        tool_call_id: "c".into(),
        tool_name: "write_file".into(),
        args: json!({"file_path": "hello.txt"}),
        kind: ToolKind::Write,
        preview: Some(
            "--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1,2 @@\n+hi there\n+second line\n".into(),
        ),
    };
    app.dialog = Some(Dialog::Approval {
        request,
        reply: Some(reply),
        selected: 0,
        note: None,
        scroll: 0,
    });
    assert_snapshot!("approval_diff_80x24", draw(&mut app, 80, 24));
    let (reply, _rx) = oneshot::channel();
    let request = ApprovalRequest {
        tool_call_id: "c".into(),
        tool_name: "bash".into(),
        args: json!({"command": "rm -rf build"}),
        kind: ToolKind::Execute,
        preview: Some("rm -rf build".into()),
    };
    app.dialog = Some(Dialog::Approval {
        request,
        reply: Some(reply),
        selected: 2,
        note: Some("use cargo clean".into()),
        scroll: 0,
    });
    assert_snapshot!("approval_command_note_50x16", draw(&mut app, 50, 16));
}

#[tokio::test]
async fn limit_and_plan_dialogs() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path());
    let (reply, _rx) = oneshot::channel();
    let summary = tunacode_core::guidance::limit_summary(
        40,
        40,
        &[tunacode_protocol::ToolUse {
            name: "grep".into(),
            count: 12,
        }],
        "rename the parser",
    );
    app.dialog = Some(Dialog::Limit {
        report: ProgressReport {
            iterations: 40,
            max_iterations: 40,
            original_query: "rename the parser".into(),
            summary,
        },
        reply: Some(reply),
        selected: 1,
    });
    assert_snapshot!("limit_80x24", draw(&mut app, 80, 24));
    let (reply, _rx) = oneshot::channel();
    app.dialog = Some(Dialog::Plan {
        plan: "# Plan\n\n1. Rename `Parser` to `Reader`\n2. Update the tests\n\n**Risk:** none"
            .into(),
        reply: Some(reply),
        selected: 0,
        feedback: None,
        scroll: 0,
    });
    assert_snapshot!("plan_80x24", draw(&mut app, 80, 24));
}

#[tokio::test]
async fn model_and_resume_pickers() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path());
    let mut picker = Picker::new(
        PickerKind::Model,
        "Model",
        [
            "openai:gpt-5",
            "openai:gpt-4.1",
            "anthropic:claude-sonnet-4-5",
        ]
        .iter()
        .map(|m| PickerItem {
            id: m.to_string(),
            label: m.to_string(),
            detail: "  200k ctx".into(),
            preview: None,
        })
        .collect(),
    );
    picker.type_char('g');
    picker.type_char('p');
    app.picker = Some(picker);
    assert_snapshot!("model_picker_80x24", draw(&mut app, 80, 24));
    app.picker = Some(Picker::new(
        PickerKind::Resume,
        "Resume a session",
        vec![
            PickerItem {
                id: "a".into(),
                label: "fix the failing test".into(),
                detail: "  2026-11-22T01:00:00Z  6 msgs".into(),
                preview: Some("› fix the failing test\nLet me look.\n  ⚙ read_file".into()),
            },
            PickerItem {
                id: "b".into(),
                label: "write docs".into(),
                detail: "  2026-11-21T10:00:00Z  2 msgs".into(),
                preview: Some("› write docs".into()),
            },
        ],
    ));
    assert_snapshot!("resume_picker_100x24", draw(&mut app, 100, 24));
}

#[tokio::test]
async fn command_completion_popup_and_multiline_input() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path());
    app.input.insert_str("/th");
    app.update_completion();
    assert!(app.popup.is_some());
    assert_snapshot!("command_popup_80x24", draw(&mut app, 80, 24));
    app.popup = None;
    app.input = crate::app::new_editor(&app.theme);
    app.input.insert_str("first line\nsecond line\nthird line");
    assert_snapshot!("multiline_input_80x24", draw(&mut app, 80, 24));
}
