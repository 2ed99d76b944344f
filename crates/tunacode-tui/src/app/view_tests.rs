//! Snapshot tests of what the UI draws (ratatui's `TestBackend` + insta), at 80×24 and narrower.

use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use tunacode_core::runtime::ApprovalQuestion;
use tunacode_core::{
    LaunchOptions, Paths, ProgressReport, Question, QuestionKind, SessionScope, SettingsFlags,
};
use tunacode_llm::models::ModelRegistry;
use tunacode_protocol::{
    AgentEvent, NoticeLevel, TodoItem, TodoStatus, ToolKind, ToolStatus, Usage,
};

use crate::app::dialogs::dialog_for;
use crate::app::picker::{Picker, PickerItem, PickerKind};
use crate::app::state::App;
use crate::app::{Channels, build_app};
use crate::config::TuiConfig;

/// An app in a temp home over a runtime pointed at `base_url`, with the volatile parts of the status
/// line pinned. Waits until the runtime's first session is shown.
pub async fn test_app_at(dir: &std::path::Path, base_url: &str) -> (App, Channels) {
    test_app_with(dir, base_url, Vec::new()).await
}

/// [`test_app_at`] with extra tools offered to the model.
pub async fn test_app_with(
    dir: &std::path::Path,
    base_url: &str,
    extra_tools: Vec<std::sync::Arc<dyn tunacode_tools::Tool>>,
) -> (App, Channels) {
    let mut config = test_config(dir, base_url);
    config.launch.extra_tools = extra_tools;
    let (mut app, mut ch) = build_app(config).await.unwrap();
    pump_until(&mut app, &mut ch, |a| a.mirror.session_shown).await;
    app.view.status.session_id = "5e55104d".into();
    app.view.status.context_window = Some(128_000);
    app.view.status.cwd = "~/proj".into();
    app.view.status.branch = Some("main".into());
    (app, ch)
}

/// The UI's config in a temp home, over a runtime pointed at `base_url`.
pub fn test_config(dir: &std::path::Path, base_url: &str) -> TuiConfig {
    let paths = Paths {
        config_file: dir.join("config/tunacode.json"),
        sessions_dir: dir.join("data/tunacode/sessions"),
        log_dir: dir.join("state"),
        models_cache: dir.join("data/tunacode/models.json"),
        mcp_approvals: dir.join("data/tunacode/mcp_approvals.json"),
    };
    let cwd = dir.join("ws");
    std::fs::create_dir_all(&cwd).unwrap();
    let history_dir = paths.sessions_dir.with_file_name("history");
    let flags = SettingsFlags {
        model: Some("openai:gpt-4.1".into()),
        base_url: Some(base_url.into()),
        cwd: Some(cwd.clone()),
        max_iterations: Some(10),
        ..SettingsFlags::default()
    };
    let mut launch = LaunchOptions::new(paths, flags);
    launch.setup = tunacode_core::SetupMode::WhenNeeded;
    TuiConfig {
        cwd,
        launch,
        catalogue: tunacode_core::setup::catalogue_of(&ModelRegistry::bundled()),
        history_dir,
        project: "test-project".into(),
        theme: "plain".into(),
        show_thoughts: false,
    }
}

/// [`test_app_at`] with a provider nobody listens on.
pub async fn test_app(dir: &std::path::Path) -> (App, Channels) {
    test_app_at(dir, "http://127.0.0.1:9/v1").await
}

/// Feeds runtime events and background results to the app until `done` holds (or fails the test).
pub async fn pump_until(app: &mut App, ch: &mut Channels, done: impl Fn(&App) -> bool) {
    let wait = async {
        while !done(app) {
            match ch.msg_rx.recv().await {
                Some(msg) => app.on_msg(msg),
                None => panic!("the app's channel closed"),
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(20), wait)
        .await
        .expect("the app did not get there in time");
}

pub(crate) fn draw(app: &mut App, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| app.draw(f)).unwrap();
    format!("{}", terminal.backend())
}

/// The screen's rows as text, trailing spaces trimmed.
fn rows(app: &mut App, w: u16, h: u16) -> Vec<String> {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| app.draw(f)).unwrap();
    let buffer = terminal.backend().buffer();
    (0..h)
        .map(|y| {
            let row: String = (0..w).map(|x| buffer[(x, y)].symbol()).collect();
            row.trim_end().to_string()
        })
        .collect()
}

/// A transcript ending in a message of `n` numbered lines (`› line 1`, `  line 2`, …) and its blank.
fn numbered_lines(app: &mut App, n: usize) {
    let text: Vec<String> = (1..=n).map(|i| format!("line {i}")).collect();
    app.view
        .transcript
        .push(crate::app::transcript::CellKind::User(text.join("\n")));
}

fn press(app: &mut App, code: crossterm::event::KeyCode) {
    app.on_terminal_event(crossterm::event::Event::Key(
        crossterm::event::KeyEvent::new(code, crossterm::event::KeyModifiers::NONE),
    ));
}

fn conversation(app: &mut App) {
    app.on_agent_event(AgentEvent::RequestStarted {
        request_id: "r".into(),
        model: "openai:gpt-4.1".into(),
        session_id: "5e55104d".into(),
    });
    app.view
        .transcript
        .push(crate::app::transcript::CellKind::User(
            "fix the failing test in src/lib.rs".into(),
        ));
    app.on_agent_event(AgentEvent::TextDelta {
        text: "Let me look at the **test** first.\n\n- read `src/lib.rs`\n- run the tests".into(),
    });
    app.on_agent_event(AgentEvent::ToolCallStarted {
        tool_call_id: "c1".into(),
        tool_name: "read_file".into(),
        args: json!({"file_path": "src/lib.rs"}),
        kind: tunacode_protocol::ToolKind::ReadOnly,
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
        kind: tunacode_protocol::ToolKind::Write,
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
        kind: tunacode_protocol::ToolKind::Execute,
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
    app.on_agent_event(AgentEvent::ContextUsed {
        tokens: 12_800,
        window: Some(128_000),
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
    let (mut app, _ch) = test_app(dir.path()).await;
    conversation(&mut app);
    assert_snapshot!("chat_80x24", draw(&mut app, 80, 24));
    assert_snapshot!("chat_60x30_narrow", draw(&mut app, 60, 30));
}

#[tokio::test]
async fn expanded_tools_todos_and_scrolled_view() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    conversation(&mut app);
    app.view.expand_tools = true;
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
    // A first frame measures the transcript; scrolling before it has nothing to scroll.
    draw(&mut app, 80, 30);
    app.view.transcript.scroll(5);
    assert_snapshot!("expanded_todos_scrolled_80x30", draw(&mut app, 80, 30));
}

#[tokio::test]
async fn the_more_lines_marker_has_its_own_row_below_the_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    numbered_lines(&mut app, 80);
    // 80×24 with a one-line input: the transcript area is rows 0..20.
    let pinned = rows(&mut app, 80, 24);
    assert_eq!(pinned[18], "  line 80");
    assert_eq!(pinned[19], "");
    app.view.transcript.scroll(5);
    let scrolled = rows(&mut app, 80, 24);
    // Five lines are below the view (lines 77 to 80 and the message's blank line): the last row of
    // text is line 76, and the marker has the row under it to itself.
    assert_eq!(scrolled[18], "  line 76", "{scrolled:#?}");
    assert_eq!(
        scrolled[19].trim_start(),
        "↓ 5 more lines (End)",
        "{scrolled:#?}"
    );
    assert_eq!(scrolled[0], "  line 58", "{scrolled:#?}");
    // Back at the bottom the marker is gone and the last row is transcript again.
    press(&mut app, crossterm::event::KeyCode::End);
    assert_eq!(rows(&mut app, 80, 24), pinned);
}

#[tokio::test]
async fn page_up_and_down_move_the_view_height_less_two_lines() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    numbered_lines(&mut app, 120);
    // The transcript area of 80×24 is 20 rows: a page is 18 lines.
    let pinned = rows(&mut app, 80, 24);
    assert_eq!(app.view.transcript.page(), 18);
    press(&mut app, crossterm::event::KeyCode::PageUp);
    assert_eq!(app.view.transcript.scroll_back, 18);
    let first = rows(&mut app, 80, 24);
    assert_eq!(
        first[19].trim_start(),
        "↓ 18 more lines (End)",
        "{first:#?}"
    );
    // The top two rows before the page are the bottom two rows of text after it.
    assert_eq!(first[17..19], pinned[0..2], "{first:#?}");
    press(&mut app, crossterm::event::KeyCode::PageUp);
    assert_eq!(app.view.transcript.scroll_back, 36);
    let second = rows(&mut app, 80, 24);
    assert_eq!(second[18], first[0], "{second:#?}");
    press(&mut app, crossterm::event::KeyCode::PageDown);
    assert_eq!(app.view.transcript.scroll_back, 18);
    assert_eq!(rows(&mut app, 80, 24), first);
    press(&mut app, crossterm::event::KeyCode::PageDown);
    assert_eq!(app.view.transcript.scroll_back, 0);
    assert_eq!(rows(&mut app, 80, 24), pinned);
    // A taller terminal has a longer page.
    rows(&mut app, 80, 40);
    assert_eq!(app.view.transcript.page(), 34);
    press(&mut app, crossterm::event::KeyCode::PageUp);
    assert_eq!(app.view.transcript.scroll_back, 34);
}

#[tokio::test]
async fn approval_dialog_with_diff_and_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    let approval = |tool: &str, args: serde_json::Value, kind, preview: &str, reason: &str| {
        dialog_for(Question {
            id: "q-1".into(),
            kind: QuestionKind::Approval(ApprovalQuestion {
                tool_call_id: "c".into(),
                scope: match args["command"].as_str() {
                    Some(line) => SessionScope::ExactCommand(line.into()),
                    None => SessionScope::Tool(tool.into()),
                },
                once_only: false,
                hunks: 0,
                subagent: None,
                tool_name: tool.into(),
                args,
                kind,
                preview: Some(preview.into()),
                reason: reason.into(),
            }),
        })
    };
    app.overlays.dialog = Some(approval(
        "write_file",
        json!({"file_path": "hello.txt"}),
        ToolKind::Write,
        "--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1,2 @@\n+hi there\n+second line\n",
        "write_file changes files in the workspace",
    ));
    assert_snapshot!("approval_diff_80x24", draw(&mut app, 80, 24));
    app.overlays.dialog = Some(approval(
        "bash",
        json!({"command": "rm -rf build"}),
        ToolKind::Execute,
        "rm -rf build",
        "this command is not known to be read-only",
    ));
    press(&mut app, crossterm::event::KeyCode::Char('n'));
    for c in "use cargo clean".chars() {
        press(&mut app, crossterm::event::KeyCode::Char(c));
    }
    assert_snapshot!("approval_command_note_50x16", draw(&mut app, 50, 16));
}

#[tokio::test]
async fn limit_and_plan_dialogs() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    let summary = tunacode_core::guidance::limit_summary(
        40,
        40,
        &[tunacode_protocol::ToolUse {
            name: "grep".into(),
            count: 12,
        }],
        "rename the parser",
    );
    app.overlays.dialog = Some(dialog_for(Question {
        id: "q-2".into(),
        kind: QuestionKind::IterationLimit(ProgressReport {
            iterations: 40,
            max_iterations: 40,
            original_query: "rename the parser".into(),
            summary,
        }),
    }));
    press(&mut app, crossterm::event::KeyCode::Down);
    assert_snapshot!("limit_80x24", draw(&mut app, 80, 24));
    // On a short screen the summary is cut so the choices stay visible, and scrolls with PgDn.
    assert_snapshot!("limit_cut_80x12", draw(&mut app, 80, 12));
    press(&mut app, crossterm::event::KeyCode::PageDown);
    assert_snapshot!("limit_scrolled_80x12", draw(&mut app, 80, 12));
    app.overlays.dialog = Some(dialog_for(Question {
        id: "q-3".into(),
        kind: QuestionKind::PlanReview {
            plan: "# Plan\n\n1. Rename `Parser` to `Reader`\n2. Update the tests\n\n**Risk:** none"
                .into(),
        },
    }));
    assert_snapshot!("plan_80x24", draw(&mut app, 80, 24));
}

#[tokio::test]
async fn model_and_resume_pickers() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
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
    app.overlays.picker = Some(picker);
    assert_snapshot!("model_picker_80x24", draw(&mut app, 80, 24));
    app.overlays.picker = Some(Picker::new(
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
    let (mut app, _ch) = test_app(dir.path()).await;
    app.input.editor.insert_str("/th");
    app.update_completion();
    assert!(app.input.popup.is_some());
    assert_snapshot!("command_popup_80x24", draw(&mut app, 80, 24));
    app.input.popup = None;
    app.input.editor = crate::app::new_editor(&app.view.theme);
    app.input
        .editor
        .insert_str("first line\nsecond line\nthird line");
    assert_snapshot!("multiline_input_80x24", draw(&mut app, 80, 24));
}

#[tokio::test]
async fn checks_and_the_verdict_in_the_transcript() {
    use tunacode_core::RunOutcome;
    use tunacode_core::runtime::{RequestEnd, RuntimeEvent};
    use tunacode_protocol::{CheckPhase, CheckReport, CheckStatus, Verification};
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    let report = |name: &str, status, output: &str| CheckReport {
        name: name.into(),
        kind: "test".into(),
        status,
        duration_ms: 1250,
        output_tail: output.into(),
    };
    let failed = report(
        "pytest",
        CheckStatus::Failed,
        "exit code: 1\nFAILED test_calc.py::test_add - assert 0 == 4\n1 failed, 3 passed",
    );
    let passed = report("pytest", CheckStatus::Passed, "exit code: 0\n4 passed");
    for check in [failed, passed.clone()] {
        let phase = CheckPhase::Completion;
        app.on_agent_event(AgentEvent::CheckFinished { phase, check });
    }
    let outcome = RunOutcome {
        reason: tunacode_protocol::FinishReason::Answered,
        iterations: 4,
        response: "Fixed.".into(),
        request_id: "r1".into(),
        model_stop: None,
        verification: Verification {
            status: tunacode_protocol::VerificationStatus::Verified,
            checks: vec![passed],
            note: None,
        },
    };
    app.on_runtime_event(RuntimeEvent::RequestEnded(Box::new(RequestEnd {
        request_id: "r1".into(),
        session_id: "s".into(),
        model: "openai:gpt-4.1".into(),
        outcome: Ok(outcome),
        usage: Usage::default(),
    })));
    assert_snapshot!("checks_verdict_80x20", draw(&mut app, 80, 20));
}
