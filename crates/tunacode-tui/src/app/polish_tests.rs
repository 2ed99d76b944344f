//! What a new user tripped on in the transcript and the keys (issue 25): each test failed before
//! its fix.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use insta::assert_snapshot;
use serde_json::json;
use tunacode_protocol::{AgentEvent, SlashCommand, ToolKind, ToolStatus};
use tunacode_testkit::{Ending, FakeProvider, Reply, Turn};

use crate::app::state::App;
use crate::app::status::Activity;
use crate::app::transcript::CellKind;
use crate::app::view_tests::{draw, pump_until, test_app, test_app_at};

/// A finished call of `tool` with `result`.
fn finished_call(app: &mut App, id: &str, tool: &str, args: serde_json::Value, result: &str) {
    app.on_agent_event(AgentEvent::ToolCallStarted {
        tool_call_id: id.into(),
        tool_name: tool.into(),
        args: args.clone(),
        kind: ToolKind::ReadOnly,
    });
    app.on_agent_event(AgentEvent::ToolCallFinished {
        tool_call_id: id.into(),
        tool_name: tool.into(),
        args,
        result: result.into(),
        duration_ms: 3,
        status: ToolStatus::Completed,
        diff: None,
    });
}

#[tokio::test]
async fn tabs_keep_their_indentation_and_long_lines_are_cut_visibly_then_wrapped_on_ctrl_o() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    finished_call(
        &mut app,
        "r1",
        "read_file",
        json!({"file_path": "main.go"}),
        "     1\tfunc main() {\n     2\t\tif ok {\n     3\t\t\tfmt.Println(\"deep\")\n     4\t\t}\n     5\t}",
    );
    finished_call(
        &mut app,
        "b1",
        "bash",
        json!({"command": "cargo build"}),
        "error[E0308]: mismatched types: expected `u32`, found `String` in the call to `parse_count` at src/main.rs:14:22",
    );
    app.on_agent_event(AgentEvent::RequestFinished {
        reason: tunacode_protocol::FinishReason::Answered,
        iterations: 1,
        response: String::new(),
    });
    assert_snapshot!(
        "tool_results_tabs_and_long_lines_60x20",
        draw(&mut app, 60, 20)
    );
    app.view.expand_tools = true;
    assert_snapshot!("tool_results_expanded_wrap_60x20", draw(&mut app, 60, 20));
}

fn key(app: &mut App, code: KeyCode, modifiers: KeyModifiers) {
    app.on_terminal_event(Event::Key(KeyEvent::new(code, modifiers)));
}

fn type_text(app: &mut App, text: &str) {
    for ch in text.chars() {
        key(app, KeyCode::Char(ch), KeyModifiers::NONE);
    }
}

/// The text of every notice and info cell, in order.
fn notes(app: &App) -> Vec<String> {
    app.view
        .transcript
        .cells
        .iter()
        .filter_map(|c| match &c.kind {
            CellKind::Notice(_, text) | CellKind::Info(text) => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// A reply that starts streaming and then hangs until the client goes away.
fn stalled(text: &str) -> Turn {
    Turn::Reply(Reply {
        text: Some(text.into()),
        ending: Ending::Stall { after_events: 2 },
        ..Reply::default()
    })
}

#[tokio::test]
async fn ctrl_u_deletes_to_the_start_of_the_line_like_readline() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    type_text(&mut app, "first line");
    key(&mut app, KeyCode::Enter, KeyModifiers::SHIFT);
    type_text(&mut app, "second line");
    key(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    assert_eq!(app.input.text(), "first line\n");
}

#[tokio::test]
async fn ctrl_c_with_the_command_popup_open_clears_the_input_too() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    type_text(&mut app, "/th");
    assert!(app.input.popup.is_some(), "the popup opened");
    key(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(app.input.popup.is_none());
    assert_eq!(app.input.text(), "");
    type_text(&mut app, "/theme");
    assert_eq!(app.input.text(), "/theme");
    assert!(!app.should_quit);
}

#[tokio::test]
async fn one_ctrl_c_quits_the_setup_screen_as_its_hint_says() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    app.open_setup(dir.path().join("config/tunacode.json"));
    let screen = draw(&mut app, 100, 30);
    assert!(screen.contains("Ctrl+C quit"), "{screen}");
    key(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(app.should_quit);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_puts_the_queued_messages_back_in_the_input_and_the_border_stops_saying_stopping() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![stalled("working on it")]);
    let (mut app, mut ch) = test_app_at(dir.path(), &fake.base_url()).await;
    app.submit("first".into());
    pump_until(&mut app, &mut ch, |a| {
        a.view.status.activity == Activity::Writing
    })
    .await;
    app.submit("second".into());
    app.submit("third".into());
    pump_until(&mut app, &mut ch, |a| a.mirror.queued == 2).await;
    type_text(&mut app, "draft");
    key(&mut app, KeyCode::Esc, KeyModifiers::NONE);
    assert_eq!(app.input.text(), "second\nthird\ndraft");
    assert_eq!(app.input.hint.as_deref(), Some("stopping…"));
    pump_until(&mut app, &mut ch, |a| !a.busy()).await;
    assert_eq!(app.input.hint, None, "the interrupt ended");
    assert!(
        notes(&app)
            .iter()
            .any(|n| n == "2 queued message(s) not sent: they are back in the input."),
        "{:?}",
        notes(&app)
    );
    // The interrupted request wrote part of an answer: that is what is kept.
    assert!(
        notes(&app)
            .iter()
            .any(|n| n == "Interrupted. The partial answer is kept.")
    );
    assert_eq!(fake.requests().len(), 1, "nothing queued was sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_on_an_approval_declines_the_call_and_stops_the_request() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[(
            "w1",
            "write_file",
            r#"{"file_path": "a.txt", "content": "x"}"#,
        )]),
        Turn::text("carried on"),
    ]);
    let (mut app, mut ch) = test_app_at(dir.path(), &fake.base_url()).await;
    app.submit("write a.txt".into());
    pump_until(&mut app, &mut ch, |a| a.overlays.dialog.is_some()).await;
    key(&mut app, KeyCode::Esc, KeyModifiers::NONE);
    pump_until(&mut app, &mut ch, |a| !a.busy()).await;
    assert_eq!(fake.requests().len(), 1, "the model was not asked again");
    assert!(!dir.path().join("ws/a.txt").exists());
    let said = notes(&app);
    assert!(said.iter().any(|n| n == "Interrupted."), "{said:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_names_the_running_tool_after_its_approval_not_thinking() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    app.mirror.busy = true;
    app.on_agent_event(AgentEvent::ToolCallStarted {
        tool_call_id: "b1".into(),
        tool_name: "bash".into(),
        args: json!({"command": "sleep 5"}),
        kind: ToolKind::Execute,
    });
    app.close_dialog();
    assert_eq!(app.view.status.activity, Activity::Tool("bash".into()));
}

#[tokio::test]
async fn copy_says_what_it_copied_and_when_there_is_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    app.run_command(SlashCommand::Copy);
    assert_eq!(notes(&app), ["Nothing to copy: there is no answer yet."]);
    assert!(app.view.pending_output.is_empty());
    app.on_agent_event(AgentEvent::TextDelta {
        text: "line one\nline two".into(),
    });
    app.run_command(SlashCommand::Copy);
    assert_eq!(app.view.pending_output.len(), 1);
    assert!(notes(&app)[1].starts_with("Copied the last answer (2 lines, 17 characters)"));
}

#[tokio::test]
async fn a_compaction_notice_has_no_stray_spaces_and_does_not_call_growth_a_success() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    app.on_agent_event(AgentEvent::ContextCompacted {
        tokens_before: 9000,
        tokens_after: 3000,
        compacted_messages: 12,
    });
    app.on_agent_event(AgentEvent::ContextCompacted {
        tokens_before: 2970,
        tokens_after: 3006,
        compacted_messages: 2,
    });
    let said = notes(&app);
    assert_eq!(
        said[0],
        "Context compacted: 12 older messages summarized (~9000 → ~3000 tokens). They stay in the session."
    );
    assert!(
        said[1].ends_with("The estimate did not shrink."),
        "{}",
        said[1]
    );
    assert!(said.iter().all(|n| !n.contains("  ")));
}

#[tokio::test]
async fn a_presented_plan_stays_in_the_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    app.on_agent_event(AgentEvent::PlanPresented {
        plan: "1. Read the parser\n2. Fix the off-by-one".into(),
    });
    let screen = draw(&mut app, 80, 12);
    assert!(screen.contains("Plan presented"), "{screen}");
    assert!(screen.contains("2. Fix the off-by-one"), "{screen}");
}

#[tokio::test]
async fn a_model_the_user_named_that_cannot_be_used_is_an_error_not_the_setup_screen() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("config")).unwrap();
    std::fs::write(
        dir.path().join("config/tunacode.json"),
        r#"{"default_model": "openai:gpt-4.1", "env": {"OPENAI_API_KEY": "sk-test"}}"#,
    )
    .unwrap();
    for (model, says) in [
        ("opnai:gpt-5", "opnai"),
        ("foo:bar", "foo"),
        ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
    ] {
        let mut config = crate::app::view_tests::test_config(dir.path(), "http://127.0.0.1:9/v1");
        config.launch.flags.model = Some(model.into());
        config.launch.flags.base_url = None;
        let Err(err) = crate::app::build_app(config).await else {
            panic!("{model} opened the app");
        };
        assert!(err.to_string().contains(says), "{model}: {err}");
    }
}

#[tokio::test]
async fn the_model_picker_aligns_its_columns_and_marks_and_selects_the_model_in_use() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    app.run_command(SlashCommand::Model(None));
    let picker = app.overlays.picker.as_ref().unwrap();
    assert_eq!(picker.current().unwrap().id, "openai:gpt-4.1");
    let screen = draw(&mut app, 110, 30);
    assert_snapshot!("model_picker_in_use_110x30", screen);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_theme_picked_is_saved_for_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, mut ch) = test_app(dir.path()).await;
    app.set_theme("light");
    // The runtime handles operations in order: once the context is described, the theme was saved.
    app.run_command(SlashCommand::Context);
    let cells = app.view.transcript.cells.len();
    pump_until(&mut app, &mut ch, |a| a.view.transcript.cells.len() > cells).await;
    let config = std::fs::read_to_string(dir.path().join("config/tunacode.json")).unwrap();
    let config: serde_json::Value = serde_json::from_str(&config).unwrap();
    assert_eq!(config["settings"]["theme"], "light");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_asks_for_a_new_one_which_is_saved_and_used() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::http_error(
            401,
            &[],
            r#"{"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}"#,
        ),
        Turn::text("works now"),
    ]);
    std::fs::create_dir_all(dir.path().join("config")).unwrap();
    // A variable of its own, so nothing in the test's environment can set it.
    let config = json!({
        "default_model": "local:test-model",
        "providers": {"local": {"base_url": fake.base_url(), "wire_api": "openai-chat",
                                "key_env": "TUNACODE_TEST_REFUSED_KEY"}},
        "env": {"TUNACODE_TEST_REFUSED_KEY": "sk-old"},
    });
    let config_file = dir.path().join("config/tunacode.json");
    std::fs::write(&config_file, config.to_string()).unwrap();
    let mut tui = crate::app::view_tests::test_config(dir.path(), &fake.base_url());
    tui.launch.flags.model = None;
    tui.launch.flags.base_url = None;
    let (mut app, mut ch) = crate::app::build_app(tui).await.unwrap();
    pump_until(&mut app, &mut ch, |a| a.mirror.session_shown).await;
    app.submit("hello".into());
    pump_until(&mut app, &mut ch, |a| a.overlays.key_prompt.is_some()).await;
    app.submit_key("sk-new".into());
    // Saved, then the model is resolved again with it (and says so).
    pump_until(&mut app, &mut ch, |a| {
        notes(a).iter().any(|n| n == "Model: local:test-model")
    })
    .await;
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&config_file).unwrap()).unwrap();
    assert_eq!(saved["env"]["TUNACODE_TEST_REFUSED_KEY"], "sk-new");
    app.submit("again".into());
    pump_until(&mut app, &mut ch, |a| {
        !a.busy() && fake.requests().len() == 2
    })
    .await;
    let auth = fake.requests()[1]
        .headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
        .map(|(_, v)| v.clone());
    assert_eq!(auth.as_deref(), Some("Bearer sk-new"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_picker_lists_an_openai_compatible_servers_own_models() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start_with(
        std::sync::Arc::new(tunacode_testkit::OpenAiChat),
        vec![],
        tunacode_testkit::FakeOptions {
            served_models: vec!["qwen3-coder:30b".into(), "llama3.2:3b".into()],
            ..tunacode_testkit::FakeOptions::default()
        },
    );
    std::fs::create_dir_all(dir.path().join("config")).unwrap();
    let config = json!({
        "default_model": "local:llama3.2:3b",
        "providers": {"local": {"base_url": fake.base_url(), "wire_api": "openai-chat"}},
    });
    std::fs::write(dir.path().join("config/tunacode.json"), config.to_string()).unwrap();
    let mut tui = crate::app::view_tests::test_config(dir.path(), &fake.base_url());
    tui.launch.flags.model = None;
    tui.launch.flags.base_url = None;
    let (mut app, mut ch) = crate::app::build_app(tui).await.unwrap();
    pump_until(&mut app, &mut ch, |a| a.mirror.session_shown).await;
    app.run_command(SlashCommand::Model(None));
    let listed = |a: &App, id: &str| {
        a.overlays
            .picker
            .as_ref()
            .is_some_and(|p| p.items.iter().any(|i| i.id == id))
    };
    pump_until(&mut app, &mut ch, |a| listed(a, "local:qwen3-coder:30b")).await;
    assert!(listed(&app, "local:llama3.2:3b"));
    let asked = fake.requests();
    assert!(
        asked
            .iter()
            .any(|r| r.method == "GET" && r.path.ends_with("/models"))
    );
    let picker = app.overlays.picker.as_ref().unwrap();
    let served = picker
        .items
        .iter()
        .find(|i| i.id == "local:llama3.2:3b")
        .unwrap();
    assert!(
        served.label.starts_with('●'),
        "the model in use is marked: {}",
        served.label
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_pasted_from_the_clipboard_goes_with_the_next_message() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("A dot.")]);
    let (mut app, mut ch) = test_app_at(dir.path(), &fake.base_url()).await;
    // What Ctrl+V's clipboard read hands back: the image kept in a file.
    let png = dir.path().join("paste.png");
    std::fs::write(&png, b"\x89PNG\r\n\x1a\n0000").unwrap();
    app.on_msg(crate::app::state::AppMsg::ClipboardImage(Ok(png)));
    assert_eq!(
        app.input.hint.as_deref(),
        Some("1 image(s) pasted; sent with the message")
    );
    app.submit("what is this?".into());
    pump_until(&mut app, &mut ch, |a| !a.busy()).await;
    let body = fake.requests()[0].body.to_string();
    assert!(
        body.contains("image_url") && body.contains("data:image/png;base64,"),
        "{body}"
    );
    assert!(app.input.images.is_empty());
    app.on_msg(crate::app::state::AppMsg::ClipboardImage(Err(
        "No image in the clipboard".into(),
    )));
    assert!(notes(&app).iter().any(|n| n == "No image in the clipboard"));
}
