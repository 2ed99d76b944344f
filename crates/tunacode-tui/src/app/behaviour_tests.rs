//! Behaviour of the app over a real runtime against the fake provider: queued messages go out in order,
//! `!` commands stay out of the model's context, `/copy` emits OSC 52, switching to a provider without
//! a key asks for it and saves it, and a panicking tool leaves the UI usable.

use std::sync::Arc;

use async_trait::async_trait;
use base64::Engine;
use serde_json::{Map, Value, json};
use tunacode_protocol::ToolKind;
use tunacode_protocol::ToolStatus;
use tunacode_testkit::{FakeProvider, Turn};
use tunacode_tools::{Tool, ToolContext, ToolError, ToolOutput};

use crate::app::status::Activity;
use crate::app::transcript::CellKind;
use crate::app::view_tests::{pump_until, test_app, test_app_at, test_app_with};
use tunacode_protocol::SlashCommand as Command;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compact_typed_while_the_agent_works_waits_for_it_instead_of_being_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::text("the first answer"),
        Turn::tool_calls(&[("l1", "list_dir", r#"{"directory": "."}"#)]),
        Turn::text("the answer"),
        Turn::text("The user asked a question; it was answered."),
    ]);
    let (mut app, mut ch) = test_app_at(dir.path(), &fake.base_url()).await;
    app.submit("first".into());
    pump_until(&mut app, &mut ch, |a| !a.busy()).await;
    app.submit("second".into());
    assert!(app.busy());
    app.submit("/compact keep the answer".into());
    pump_until(&mut app, &mut ch, |a| a.mirror.queued == 1).await;
    // Not refused: it waits its turn, then the model summarizes.
    assert!(
        app.input
            .hint
            .as_deref()
            .is_none_or(|h| !h.contains("wait")),
        "{:?}",
        app.input.hint
    );
    pump_until(&mut app, &mut ch, |_| fake.requests().len() == 4).await;
    let requests = fake.requests();
    let summary_request = requests[3].body.to_string();
    assert!(
        summary_request.contains("keep the answer") && summary_request.contains("the answer"),
        "{summary_request}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_typed_while_the_agent_works_are_sent_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::text("one"),
        Turn::text("two"),
        Turn::text("three"),
    ]);
    let (mut app, mut ch) = test_app_at(dir.path(), &fake.base_url()).await;
    app.submit("first".into());
    assert!(app.busy());
    app.submit("second".into());
    app.submit("third".into());
    pump_until(&mut app, &mut ch, |a| a.mirror.queued == 2).await;
    // Each message shows when it starts; the last one has ended once the UI is idle again.
    let users = |a: &crate::app::state::App| {
        a.view
            .transcript
            .cells
            .iter()
            .filter(|c| matches!(c.kind, CellKind::User(_)))
            .count()
    };
    pump_until(&mut app, &mut ch, |a| {
        users(a) == 3 && !a.busy() && a.mirror.queued == 0
    })
    .await;
    let asked: Vec<String> = fake
        .requests()
        .iter()
        .map(|r| {
            let msgs = r.body["messages"].as_array().unwrap();
            msgs.last().unwrap()["content"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(asked, ["first", "second", "third"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shell_commands_show_output_and_stay_out_of_the_context() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("ok")]);
    let (mut app, mut ch) = test_app_at(dir.path(), &fake.base_url()).await;
    app.submit("!echo from-the-shell".into());
    pump_until(&mut app, &mut ch, |a| {
        a.view.transcript.cells.iter().any(
            |c| matches!(&c.kind, CellKind::Shell { output, .. } if output.contains("from-the-shell")),
        )
    })
    .await;
    app.submit("hello".into());
    pump_until(&mut app, &mut ch, |a| !a.busy()).await;
    let body = serde_json::to_string(&fake.requests()[0].body).unwrap();
    assert!(
        !body.contains("from-the-shell"),
        "shell output leaked into the request"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_shell_command_stops_on_esc() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, mut ch) = test_app(dir.path()).await;
    app.submit("!sleep 30; echo never".into());
    app.interrupt();
    pump_until(&mut app, &mut ch, |a| {
        a.view
            .transcript
            .cells
            .iter()
            .any(|c| matches!(&c.kind, CellKind::Shell { .. }))
    })
    .await;
    let shown = app
        .view
        .transcript
        .cells
        .iter()
        .find_map(|c| match &c.kind {
            CellKind::Shell { output, .. } => Some(output.clone()),
            _ => None,
        })
        .unwrap();
    assert!(!shown.contains("never"), "{shown}");
}

#[tokio::test]
async fn the_status_says_writing_while_answer_text_streams() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    app.on_agent_event(tunacode_protocol::AgentEvent::IterationStarted {
        iteration: 1,
        max_iterations: 10,
    });
    assert_eq!(app.view.status.activity, Activity::Thinking);
    app.on_agent_event(tunacode_protocol::AgentEvent::TextDelta {
        text: "Here is".into(),
    });
    assert_eq!(app.view.status.activity, Activity::Writing);
}

#[tokio::test]
async fn copy_emits_osc52_with_the_last_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    app.on_agent_event(tunacode_protocol::AgentEvent::TextDelta {
        text: "the **answer**".into(),
    });
    app.run_command(Command::Copy);
    let encoded = base64::engine::general_purpose::STANDARD.encode("the **answer**");
    assert_eq!(
        app.view.pending_output,
        vec![format!("\x1b]52;c;{encoded}\x07")]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn switching_to_a_provider_without_a_key_asks_for_it_and_saves_it() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, mut ch) = test_app(dir.path()).await;
    app.switch_model("anthropic:claude-sonnet-4-5");
    pump_until(&mut app, &mut ch, |a| a.overlays.key_prompt.is_some()).await;
    let (prompt, model) = app.overlays.key_prompt.as_ref().expect("a key prompt");
    assert_eq!(
        (prompt.key_env(), model.as_str()),
        ("ANTHROPIC_API_KEY", "anthropic:claude-sonnet-4-5")
    );
    app.submit_key("sk-ant-test".into());
    // The runtime saves the key before it switches, and the switch reads it from the config.
    pump_until(&mut app, &mut ch, |a| {
        a.view.status.model == "anthropic:claude-sonnet-4-5"
    })
    .await;
    let config = dir.path().join("config/tunacode.json");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert_eq!(saved["env"]["ANTHROPIC_API_KEY"], "sk-ant-test");
}

/// A tool whose call panics.
struct Explodes;

#[async_trait]
impl Tool for Explodes {
    fn name(&self) -> &str {
        "explode"
    }
    fn description(&self) -> &str {
        "Panics."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}, "required": []})
    }
    fn kind(&self) -> ToolKind {
        ToolKind::ReadOnly
    }
    async fn call(&self, _: Map<String, Value>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        panic!("boom in the tool")
    }
}

/// A writing tool whose approval preview panics (outside the tool call: the whole request fails).
struct BadPreview;

#[async_trait]
impl Tool for BadPreview {
    fn name(&self) -> &str {
        "bad_preview"
    }
    fn description(&self) -> &str {
        "Its preview panics."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}, "required": []})
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }
    async fn call(&self, _: Map<String, Value>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("wrote"))
    }
    async fn preview(
        &self,
        _: &Map<String, Value>,
        _: &ToolContext,
    ) -> Result<Option<String>, ToolError> {
        panic!("boom in the preview")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_tool_leaves_the_ui_usable() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("c1", "explode", "{}")]),
        Turn::text("after the crash"),
        Turn::tool_calls(&[("c2", "bad_preview", "{}")]),
        Turn::text("still alive"),
    ]);
    let tools: Vec<Arc<dyn Tool>> = vec![Arc::new(Explodes), Arc::new(BadPreview)];
    let (mut app, mut ch) = test_app_with(dir.path(), &fake.base_url(), tools).await;
    app.submit("go".into());
    pump_until(&mut app, &mut ch, |a| {
        !a.busy() && fake.requests().len() == 2
    })
    .await;
    let crashed = app.view.transcript.cells.iter().any(|c| {
        matches!(&c.kind, CellKind::Tool(t)
            if t.status == Some(ToolStatus::Failed) && t.result.contains("the tool crashed: boom in the tool"))
    });
    assert!(crashed, "the tool's panic is shown as its failure");
    assert_eq!(
        app.view.transcript.last_answer().as_deref(),
        Some("after the crash")
    );

    app.submit("again".into());
    pump_until(&mut app, &mut ch, |a| {
        !a.busy()
            && a.view
                .transcript
                .cells
                .iter()
                .any(|c| matches!(&c.kind, CellKind::Error(e) if e.contains("boom in the preview")))
    })
    .await;

    app.submit("and again".into());
    pump_until(&mut app, &mut ch, |a| {
        !a.busy() && fake.requests().len() == 4
    })
    .await;
    assert_eq!(
        app.view.transcript.last_answer().as_deref(),
        Some("still alive")
    );
    let last = &fake.requests()[3].body;
    let text = last.to_string();
    assert!(
        text.contains("after the crash") && text.contains("and again"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_setup_check_uses_the_settings_the_run_will_use() {
    // The user's config already points `openai` at another endpoint: the check must go there (as the
    // run will), not to the provider's default address.
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("pong")]);
    let mut tui = crate::app::view_tests::test_config(dir.path(), &fake.base_url());
    let config = tui.launch.paths.config_file.clone();
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let json = serde_json::json!({"providers": {"openai": {"base_url": fake.base_url(), "wire_api": "openai-chat"}}});
    std::fs::write(&config, json.to_string()).unwrap();
    tui.launch.flags.base_url = None;
    tui.launch.setup = tunacode_core::SetupMode::Always;
    let (app, mut ch) = crate::app::build_app(tui).await.unwrap();
    assert!(
        matches!(app.screen, crate::app::state::Screen::Setup(_)),
        "--setup opens the setup screen first"
    );
    app.check_setup(crate::setup::SetupChoice {
        provider: "openai".into(),
        model: "gpt-test".into(),
        base_url: None,
        wire_api: None,
        key_env: Some("OPENAI_API_KEY".into()),
        api_key: Some("sk-check".into()),
    });
    let checked = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        loop {
            match ch.msg_rx.recv().await {
                Some(crate::app::state::AppMsg::Runtime(event)) => {
                    if let tunacode_core::RuntimeEvent::SetupChecked(result) = *event {
                        break result;
                    }
                }
                Some(_) => {}
                None => panic!("closed"),
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(checked, Ok(()));
    let requests = fake.requests();
    assert_eq!(
        requests.len(),
        1,
        "the check reached the configured endpoint"
    );
    assert_eq!(requests[0].body["model"], "gpt-test");
    let auth = requests[0]
        .headers
        .iter()
        .find(|(k, _)| k == "authorization")
        .map(|(_, v)| v.as_str());
    assert_eq!(auth, Some("Bearer sk-check"));
    // Nothing was written: the choice is saved only after the check.
    assert!(
        !std::fs::read_to_string(&config)
            .unwrap()
            .contains("sk-check")
    );
}

#[tokio::test]
async fn a_resumed_compacted_session_shows_everything_and_the_summary_as_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    let mut old = tunacode_protocol::Message::user("the original task");
    old.mark_compacted();
    let summary = tunacode_protocol::Message::user("[Compaction summary]\n\n## Task\nThe task.");
    app.replay(&[old, summary, tunacode_protocol::Message::user("next")]);
    let kinds: Vec<&CellKind> = app.view.transcript.cells.iter().map(|c| &c.kind).collect();
    assert!(matches!(kinds[0], CellKind::User(t) if t == "the original task"));
    assert!(matches!(kinds[1], CellKind::Info(t) if t.contains("## Task\nThe task.")));
    assert!(matches!(kinds[2], CellKind::User(t) if t == "next"));
}

#[tokio::test]
async fn journal_lines_kept_aside_when_a_session_opens_are_a_warning_cell() {
    use tunacode_core::runtime::ModelView;
    use tunacode_core::{JournalRecovery, RuntimeEvent, SessionNotice, SessionView};
    use tunacode_protocol::NoticeLevel;
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    let message = "The journal of session s could not be replayed in full: … kept 1 line(s) aside";
    let view = SessionView {
        session_id: "s".into(),
        workspace: dir.path().to_path_buf(),
        messages: Default::default(),
        model: ModelView {
            model: "openai:m".into(),
            context_window: None,
        },
        plan_mode: false,
        usage: Default::default(),
        todos: Vec::new(),
        resumed: true,
        notice: Some(SessionNotice {
            level: NoticeLevel::Warning,
            message: message.into(),
            recovery: Some(JournalRecovery {
                recovered: 2,
                kept_aside: 1,
                kept_file: Some("/d/s.jsonl.corrupt-x".into()),
            }),
        }),
    };
    app.on_runtime_event(RuntimeEvent::SessionOpened(Box::new(view)));
    let shown = app.view.transcript.cells.iter().any(
        |c| matches!(&c.kind, CellKind::Notice(NoticeLevel::Warning, text) if text == message),
    );
    assert!(shown, "a warning notice cell");
}

#[tokio::test]
async fn a_storm_of_retries_is_one_notice_line_that_counts_up() {
    use tunacode_protocol::{AgentEvent, NoticeLevel};
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    let before = app.view.transcript.cells.len();
    let notice = |message: &str| AgentEvent::Notice {
        level: NoticeLevel::Warning,
        message: message.into(),
    };
    app.on_agent_event(notice(
        "rate limited: slow down; retrying in 0.5s (retry 1 of 4)",
    ));
    app.on_agent_event(notice(
        "rate limited: slow down; retrying in 1.0s (retry 2 of 4)",
    ));
    app.on_agent_event(notice(
        "Tools changed since the last request (offered from now on: x).",
    ));
    app.on_agent_event(notice(
        "provider overloaded; retrying in 2.0s (retry 1 of 4)",
    ));
    let notices: Vec<String> = app.view.transcript.cells[before..]
        .iter()
        .filter_map(|c| match &c.kind {
            CellKind::Notice(_, message) => Some(message.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        notices,
        [
            "rate limited: slow down; retrying in 1.0s (retry 2 of 4)",
            "Tools changed since the last request (offered from now on: x).",
            "provider overloaded; retrying in 2.0s (retry 1 of 4)",
        ]
    );
}

#[tokio::test]
async fn cost_shows_the_last_calls_cache_share_and_the_budget() {
    use tunacode_protocol::runtime::{BudgetScope, BudgetView, CapView, RuntimeEvent};
    use tunacode_protocol::{AgentEvent, Usage};
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    let call = Usage {
        request_tokens: 1000,
        cached_tokens: 800,
        response_tokens: 50,
        cost: 0.01,
        ..Usage::default()
    };
    app.on_agent_event(AgentEvent::UsageUpdated {
        last_call: call,
        session_total: call,
    });
    app.on_runtime_event(RuntimeEvent::Budget(BudgetView {
        caps: vec![CapView {
            scope: BudgetScope::Session,
            usd: Some(5.0),
            tokens: None,
            spent_usd: 4.2,
            spent_tokens: 0,
        }],
    }));
    let text = app.view.cost_text();
    assert!(
        text.contains("last call: 800 of 1000 input tokens read from the cache (80%)"),
        "{text}"
    );
    assert!(
        text.contains("budget: 84% of the session cap used"),
        "{text}"
    );
}
