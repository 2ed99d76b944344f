//! The conversation runtime against the fake provider: sessions opened, switched and resumed through
//! operations, typed failures, the queue and interrupts, read-only commands without approval, and
//! repeated tool-call ids made unique.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use pretty_assertions::assert_eq;
use serde_json::Value;
use tunacode_core::runtime::OpFailure;
use tunacode_core::{Op, Runtime, RuntimeConfig, RuntimeEvent, SessionChoice};
use tunacode_testkit::{FakeProvider, Reply, Turn};

use common::runtime_kit::{WAIT, ended, failed, next, opened, settings, start};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_continued_cleared_and_resumed_through_operations() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("one"), Turn::text("two")]);
    let s = settings(dir.path(), &fake.base_url());

    // Nothing saved yet: continuing opens a new session and says so.
    let (rt, mut rx) = start(s.clone(), SessionChoice::ContinueLatest, false).await;
    let first = next(&mut rx, opened).await;
    assert!(!first.resumed);
    assert!(first.notice.unwrap().message.contains("No saved session"));
    rt.submit(Op::user_message("hello"));
    let end = next(&mut rx, ended).await;
    assert_eq!(end.outcome.unwrap().response, "one");
    assert_eq!(end.session_id, first.session_id);

    rt.submit(Op::NewSession);
    let cleared = next(&mut rx, opened).await;
    assert_ne!(cleared.session_id, first.session_id);
    assert!(cleared.messages.is_empty());
    rt.submit(Op::ResumeSession {
        id: first.session_id.clone(),
    });
    let resumed = next(&mut rx, opened).await;
    assert!(resumed.resumed);
    assert_eq!(resumed.session_id, first.session_id);
    assert_eq!(resumed.messages.len(), 2);
    rt.submit(Op::Shutdown);
    next(&mut rx, |e| {
        matches!(e, RuntimeEvent::Stopped).then_some(())
    })
    .await;

    // A second runtime continues the latest session, with its history in the next request.
    let (rt, mut rx) = start(s.clone(), SessionChoice::ContinueLatest, false).await;
    let again = next(&mut rx, opened).await;
    assert_eq!(again.session_id, first.session_id);
    rt.submit(Op::user_message("more"));
    next(&mut rx, ended).await;
    let body = fake.requests()[1].body.to_string();
    assert!(body.contains("hello") && body.contains("one") && body.contains("more"));

    // A session that does not exist is an error at start.
    let mut config = RuntimeConfig::new(s);
    config.session = SessionChoice::Resume("no-such-id".into());
    let err = Runtime::start(config).await.unwrap_err();
    assert!(err.to_string().contains("no-such-id"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_without_a_key_is_a_typed_failure_and_busy_operations_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![Turn::Reply(Reply {
        text: Some("slow ".repeat(40)),
        chunk_chars: 5,
        delay_ms: 30,
        ..Reply::default()
    })]);
    let (rt, mut rx) = start(
        settings(dir.path(), &fake.base_url()),
        SessionChoice::New,
        false,
    )
    .await;
    next(&mut rx, opened).await;
    rt.submit(Op::SetModel {
        model: "google:gemini-2.5-pro".into(),
    });
    let failure = next(&mut rx, failed).await;
    assert!(
        matches!(&failure, OpFailure::MissingKey { var, .. } if var == "GEMINI_API_KEY"),
        "{failure:?}"
    );

    rt.submit(Op::user_message("a"));
    rt.submit(Op::user_message("b"));
    rt.submit(Op::user_message("c"));
    let queued = next(&mut rx, |e| match e {
        RuntimeEvent::Queued { pending } if pending == 2 => Some(pending),
        _ => None,
    })
    .await;
    assert_eq!(queued, 2);
    rt.submit(Op::NewSession);
    let busy = next(&mut rx, failed).await;
    assert!(matches!(busy, OpFailure::Busy(_)), "{busy:?}");
    rt.submit(Op::Interrupt);
    next(&mut rx, |e| {
        matches!(e, RuntimeEvent::Queued { pending: 0 }).then_some(())
    })
    .await;
    let end = next(&mut rx, ended).await;
    assert!(
        matches!(&end.outcome, Err(e) if e.aborted()),
        "{:?}",
        end.outcome
    );
    rt.submit(Op::Finish);
    next(&mut rx, |e| {
        matches!(e, RuntimeEvent::Stopped).then_some(())
    })
    .await;
    // The interrupt may land before or after the first request went out; the queued ones never do.
    let requests = fake.requests();
    assert!(requests.len() <= 1);
    for r in &requests {
        let last = r.body["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert_eq!(last["content"], "a", "the queued messages were dropped");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_commands_run_without_asking_and_repeated_call_ids_are_made_unique() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[
            ("same", "bash", r#"{"command": "ls -a | wc -l"}"#),
            ("same", "bash", r#"{"command": "touch made.txt"}"#),
        ]),
        Turn::tool_calls(&[("same", "read_file", r#"{"file_path": "nothing.txt"}"#)]),
        Turn::text("done"),
    ]);
    // Not interactive: anything that asks is refused.
    let (rt, mut rx) = start(
        settings(dir.path(), &fake.base_url()),
        SessionChoice::New,
        false,
    )
    .await;
    next(&mut rx, opened).await;
    rt.submit(Op::user_message("go"));
    let mut finished = Vec::new();
    let wait = async {
        loop {
            match rx.recv().await.unwrap() {
                RuntimeEvent::Agent(tunacode_protocol::AgentEvent::ToolCallFinished {
                    tool_call_id,
                    status,
                    result,
                    ..
                }) => finished.push((tool_call_id, status, result)),
                RuntimeEvent::RequestEnded(_) => break,
                _ => {}
            }
        }
    };
    tokio::time::timeout(WAIT, wait).await.unwrap();
    assert_eq!(finished.len(), 3);
    assert_eq!(
        finished[0].1,
        tunacode_protocol::ToolStatus::Completed,
        "{finished:?}"
    );
    assert_eq!(finished[1].1, tunacode_protocol::ToolStatus::Failed);
    assert!(finished[1].2.contains("non-interactive"));
    let ids: std::collections::HashSet<&String> = finished.iter().map(|f| &f.0).collect();
    assert_eq!(ids.len(), 3, "every call has its own id: {finished:?}");
    assert_eq!(finished[0].0, "same", "the first keeps its id");

    // The provider saw unique ids, each result paired with its call.
    let last: Value = fake.requests()[2].body.clone();
    let mut calls = Vec::new();
    let mut answers = Vec::new();
    for m in last["messages"].as_array().unwrap() {
        for c in m["tool_calls"].as_array().into_iter().flatten() {
            calls.push(c["id"].as_str().unwrap().to_string());
        }
        if m["role"] == "tool" {
            answers.push(m["tool_call_id"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(calls, answers);
    assert_eq!(
        calls.iter().collect::<std::collections::HashSet<_>>().len(),
        3
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_handed_over_at_run_time_start_like_configured_ones_and_stop_with_the_runtime() {
    use tunacode_core::mcp::{ConfigSource, ServerState};
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("e1", "mcp__editor__echo", r#"{"message": "handed over"}"#)]),
        Turn::text("done"),
    ]);
    let s = settings(dir.path(), &fake.base_url());
    let mut config = RuntimeConfig::new(s);
    config.yolo = true;
    let (rt, mut rx) = Runtime::start(config).await.unwrap();
    next(&mut rx, opened).await;
    let editor = tunacode_protocol::McpServerSpec {
        name: "editor".into(),
        transport: tunacode_protocol::McpTransport::Stdio {
            command: tunacode_testkit::fake_mcp_binary().display().to_string(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
        },
    };
    rt.submit(Op::AddMcpServers {
        servers: vec![editor],
    });
    let ready = next(&mut rx, |e| match e {
        RuntimeEvent::McpServer(s) if s.state == ServerState::Ready => Some(s),
        _ => None,
    })
    .await;
    assert_eq!(ready.name, "editor");
    assert_eq!(ready.source, ConfigSource::Client);
    rt.submit(Op::user_message("go"));
    next(&mut rx, ended).await;
    let answer = fake.requests()[1].body.to_string();
    assert!(answer.contains("echo: handed over"), "{answer}");

    rt.submit(Op::ListMcp);
    let listed = next(&mut rx, |e| match e {
        RuntimeEvent::McpServers(all) => Some(all),
        _ => None,
    })
    .await;
    assert_eq!(listed.len(), 1);
    rt.submit(Op::Shutdown);
    let stopped = next(&mut rx, |e| match e {
        RuntimeEvent::McpServer(s) if s.state == ServerState::Stopped => Some(s),
        _ => None,
    })
    .await;
    assert_eq!(stopped.name, "editor");
    next(&mut rx, |e| {
        matches!(e, RuntimeEvent::Stopped).then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sandbox_can_be_changed_between_requests_and_is_described() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("t", "bash", r#"{"command": "touch made.txt"}"#)]),
        Turn::text("ok"),
    ]);
    let s = settings(dir.path(), &fake.base_url());
    let mut config = RuntimeConfig::new(s);
    config.yolo = true;
    let (rt, mut rx) = Runtime::start(config).await.unwrap();
    next(&mut rx, opened).await;
    let described = |e: RuntimeEvent| match e {
        RuntimeEvent::Permissions(text) => Some(text),
        _ => None,
    };
    rt.submit(Op::DescribePermissions);
    let before = next(&mut rx, described).await;
    assert!(before.starts_with("Sandbox: workspace-write"), "{before}");
    rt.submit(Op::SetSandbox {
        mode: "read-only".into(),
    });
    let after = next(&mut rx, described).await;
    assert!(
        after.starts_with("Sandbox: read-only: commands write nowhere"),
        "{after}"
    );
    rt.submit(Op::SetSandbox {
        mode: "sideways".into(),
    });
    let refused = next(&mut rx, failed).await;
    assert!(
        refused
            .to_string()
            .contains("unknown sandbox mode `sideways`")
    );
    rt.submit(Op::DescribeContext);
    let context = next(&mut rx, |e| match e {
        RuntimeEvent::Context(breakdown) => Some(breakdown.render()),
        _ => None,
    })
    .await;
    assert!(
        context.contains("instruction files") && context.contains("skills"),
        "{context}"
    );

    // The engine runs commands read-only from now on.
    rt.submit(Op::user_message("make a file"));
    next(&mut rx, ended).await;
    assert!(!dir.path().join("ws/made.txt").exists());
    let answer = fake.requests()[1].body.to_string();
    assert!(answer.contains("read-only sandbox"), "{answer}");
}

#[tokio::test]
async fn a_queued_command_that_cannot_start_makes_way_for_the_next_message() {
    let slow = Turn::Reply(Reply {
        text: Some("first answer".into()),
        delay_ms: 30,
        ..Reply::default()
    });
    let fake = FakeProvider::start(vec![slow, Turn::text("second answer")]);
    let dir = tempfile::tempdir().unwrap();
    let commands = dir.path().join("ws/.tunacode/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("elsewhere.md"),
        "---\ndescription: on another model\nmodel: gemini:gemini-2.5-pro\n---\nDo it elsewhere.\n",
    )
    .unwrap();
    let (rt, mut rx) = start(
        settings(dir.path(), &fake.base_url()),
        SessionChoice::New,
        true,
    )
    .await;
    rt.submit(Op::user_message("first"));
    rt.submit(Op::user_message("/elsewhere"));
    rt.submit(Op::user_message("second"));
    rt.submit(Op::Finish);
    let first = next(&mut rx, ended).await;
    assert_eq!(first.outcome.unwrap().response, "first answer");
    let failure = next(&mut rx, failed).await;
    assert!(
        matches!(failure, OpFailure::MissingKey { .. }),
        "{failure:?}"
    );
    let second = next(&mut rx, ended).await;
    assert_eq!(second.outcome.unwrap().response, "second answer");
    next(&mut rx, |e| {
        matches!(e, RuntimeEvent::Stopped).then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_saved_key_switches_the_model_and_a_key_that_could_not_be_saved_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let s = settings(dir.path(), "http://127.0.0.1:9/v1");
    let config_file = s.paths.config_file.clone();
    let (rt, mut rx) = start(s, SessionChoice::New, true).await;
    next(&mut rx, opened).await;
    let save = || Op::SaveKey {
        var: "ANTHROPIC_API_KEY".into(),
        key: tunacode_protocol::runtime::Secret::new("sk-ant-test"),
        model: Some("anthropic:claude-sonnet-4-5".into()),
    };
    // The config cannot be written (its path is a folder): said, and the model stays.
    std::fs::create_dir_all(&config_file).unwrap();
    rt.submit(save());
    rt.submit(Op::DescribePermissions);
    let mut seen = Vec::new();
    let until_permissions = async {
        loop {
            match rx.recv().await.expect("events") {
                RuntimeEvent::Permissions(_) => break,
                RuntimeEvent::OpFailed(f) => seen.push(f),
                RuntimeEvent::ModelChanged(m) => panic!("switched to {} without its key", m.model),
                _ => {}
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(30), until_permissions)
        .await
        .expect("the permissions reply");
    assert!(
        matches!(seen.as_slice(), [OpFailure::Settings(m)] if m.contains("could not be saved")),
        "{seen:?}"
    );
    // Written: the switch follows and reads the key from the config.
    std::fs::remove_dir(&config_file).unwrap();
    rt.submit(save());
    let changed = next(&mut rx, |e| match e {
        RuntimeEvent::ModelChanged(m) => Some(m.model),
        _ => None,
    })
    .await;
    assert_eq!(changed, "anthropic:claude-sonnet-4-5");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&config_file).unwrap()).unwrap();
    assert_eq!(saved["env"]["ANTHROPIC_API_KEY"], "sk-ant-test");
    assert!(
        !format!("{:?}", save()).contains("sk-ant"),
        "the key never shows in Debug"
    );
}
