//! Behaviour of the app against the fake provider: queued messages go out in order, `!` commands stay
//! out of the model's context, `/copy` emits OSC 52, and switching to a provider without a key asks
//! for it and saves it.

use std::time::Duration;

use base64::Engine;
use tunacode_testkit::{FakeProvider, Turn};

use crate::app::Channels;
use crate::app::commands::Command;
use crate::app::state::{App, AppMsg};
use crate::app::transcript::CellKind;
use crate::app::view_tests::test_app;

/// Feeds engine events and background results to the app until `done` holds (or fails the test).
async fn pump(app: &mut App, ch: &mut Channels, done: impl Fn(&App) -> bool) {
    let wait = async {
        while !done(app) {
            tokio::select! {
                Some(e) = ch.agent_rx.recv() => app.on_agent_event(e),
                Some(m) = ch.msg_rx.recv() => app.on_msg(m),
                Some(r) = ch.ui_rx.recv() => app.on_ui_request(r),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), wait)
        .await
        .expect("the app did not get there in time");
}

fn point_at(app: &mut App, fake: &FakeProvider) {
    let url = fake.base_url();
    app.resolve = std::sync::Arc::new(move |model: Option<&str>| {
        let id = tunacode_llm::ModelId::parse(model.unwrap_or("openai:gpt-4.1"))
            .map_err(|e| e.to_string())?;
        let provider = tunacode_llm::ProviderSettings::for_model(&id, Some(url.clone()), None)
            .map_err(|e| e.to_string())?;
        let mut options = crate::app::tests_support::options();
        options.model = id.to_string();
        options.provider_model = id.model.clone();
        Ok(crate::RunSettings {
            options,
            provider,
            context_window: None,
        })
    });
    app.switch_model("openai:gpt-4.1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_typed_while_the_agent_works_are_sent_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::text("one"),
        Turn::text("two"),
        Turn::text("three"),
    ]);
    let (mut app, mut ch) = test_app(dir.path());
    point_at(&mut app, &fake);
    app.submit("first".into());
    assert!(app.busy());
    app.submit("second".into());
    app.submit("third".into());
    assert_eq!(app.queue.len(), 2);
    pump(&mut app, &mut ch, |a| {
        !a.busy() && a.queue.is_empty() && fake.requests().len() == 3
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
    let (mut app, mut ch) = test_app(dir.path());
    point_at(&mut app, &fake);
    app.submit("!echo from-the-shell".into());
    let msg = tokio::time::timeout(Duration::from_secs(20), ch.msg_rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(&msg, AppMsg::ShellDone { output, .. } if output.contains("from-the-shell")),
        "{msg:?}"
    );
    app.on_msg(msg);
    assert!(matches!(
        app.transcript.cells.last().map(|c| &c.kind),
        Some(CellKind::Shell { .. })
    ));
    app.submit("hello".into());
    pump(&mut app, &mut ch, |a| !a.busy()).await;
    let body = serde_json::to_string(&fake.requests()[0].body).unwrap();
    assert!(
        !body.contains("from-the-shell"),
        "shell output leaked into the request"
    );
}

#[tokio::test]
async fn copy_emits_osc52_with_the_last_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path());
    app.on_agent_event(tunacode_protocol::AgentEvent::TextDelta {
        text: "the **answer**".into(),
    });
    app.run_command(Command::Copy);
    let encoded = base64::engine::general_purpose::STANDARD.encode("the **answer**");
    assert_eq!(app.pending_output, vec![format!("\x1b]52;c;{encoded}\x07")]);
}

#[tokio::test]
async fn switching_to_a_provider_without_a_key_asks_for_it_and_saves_it() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path());
    let config = app.paths.config_file.clone();
    app.resolve = std::sync::Arc::new(move |_model: Option<&str>| {
        let cfg = tunacode_store::UserConfig::load(&config).map_err(|e| e.to_string())?;
        match cfg.env.get("ANTHROPIC_API_KEY") {
            Some(_) => Err("resolved with the key".into()),
            None => Err("no API key for anthropic: set ANTHROPIC_API_KEY".into()),
        }
    });
    app.switch_model("anthropic:claude-sonnet-4-5");
    let (prompt, model) = app.key_prompt.as_ref().expect("a key prompt");
    assert_eq!(
        (prompt.key_env(), model.as_str()),
        ("ANTHROPIC_API_KEY", "anthropic:claude-sonnet-4-5")
    );
    app.submit_key("sk-ant-test".into());
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&app.paths.config_file).unwrap()).unwrap();
    assert_eq!(saved["env"]["ANTHROPIC_API_KEY"], "sk-ant-test");
    assert!(
        matches!(app.transcript.cells.last().map(|c| &c.kind), Some(CellKind::Error(e)) if e == "resolved with the key")
    );
}
