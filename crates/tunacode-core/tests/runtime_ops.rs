//! The runtime's handler families through operations: a project's `.mcp.json` waits for approval and
//! is approved for its content only, and undo restores what a request changed, refuses while a
//! request runs and says when there is nothing to undo.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use pretty_assertions::assert_eq;
use tunacode_core::mcp::ServerState;
use tunacode_core::runtime::OpFailure;
use tunacode_core::{Op, Runtime, RuntimeConfig, RuntimeEvent, SessionChoice};
use tunacode_testkit::{Ending, FakeProvider, Reply, Turn};

use common::runtime_kit::{ended, failed, next, opened, settings, settings_in, start};

/// The project's servers named in a pending event, if it is one.
fn pending(e: RuntimeEvent) -> Option<Vec<String>> {
    match e {
        RuntimeEvent::McpProjectPending { servers, .. } => Some(servers),
        _ => None,
    }
}

/// A runtime over a new session in `dir`, asking questions.
async fn open(
    dir: &std::path::Path,
    fake: &FakeProvider,
) -> (
    tunacode_core::RuntimeHandle,
    tokio::sync::mpsc::UnboundedReceiver<RuntimeEvent>,
) {
    start(settings(dir, &fake.base_url()), SessionChoice::New, true).await
}

/// Shuts the runtime down and waits until it stopped (its MCP servers with it).
async fn stop(
    rt: &tunacode_core::RuntimeHandle,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<RuntimeEvent>,
) {
    rt.submit(Op::Shutdown);
    next(rx, |e| matches!(e, RuntimeEvent::Stopped).then_some(())).await;
}

fn write_mcp_file(ws: &std::path::Path, name: &str) {
    let command = tunacode_testkit::fake_mcp_binary().display().to_string();
    let file = serde_json::json!({ "mcpServers": { name: { "command": command } } });
    std::fs::write(ws.join(".mcp.json"), file.to_string()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_mcp_file_starts_only_once_approved_and_only_as_approved() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(Vec::new());
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();

    // No project file: nothing to approve, said as a failure.
    let (rt, mut rx) = open(dir.path(), &fake).await;
    next(&mut rx, opened).await;
    rt.submit(Op::ApproveProjectMcp);
    let refused = next(&mut rx, failed).await;
    assert!(
        matches!(&refused, OpFailure::Invalid(m) if m.contains("no .mcp.json")),
        "{refused:?}"
    );
    stop(&rt, &mut rx).await;

    // A cloned project's file waits; approving it starts its server.
    write_mcp_file(&ws, "proj");
    let (rt, mut rx) = open(dir.path(), &fake).await;
    assert_eq!(next(&mut rx, pending).await, vec!["proj".to_string()]);
    rt.submit(Op::ListMcp);
    let before = next(&mut rx, |e| match e {
        RuntimeEvent::McpServers(all) => Some(all),
        _ => None,
    })
    .await;
    assert!(
        before.is_empty(),
        "nothing starts before approval: {before:?}"
    );
    rt.submit(Op::ApproveProjectMcp);
    let ready = next(&mut rx, |e| match e {
        RuntimeEvent::McpServer(s) if s.state == ServerState::Ready => Some(s),
        _ => None,
    })
    .await;
    assert_eq!(ready.name, "proj");
    stop(&rt, &mut rx).await;

    // The approval holds for that content only: a changed file waits again.
    write_mcp_file(&ws, "swapped");
    let (rt, mut rx) = open(dir.path(), &fake).await;
    assert_eq!(next(&mut rx, pending).await, vec!["swapped".to_string()]);
    rt.submit(Op::Shutdown);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_restores_a_requests_change_refuses_while_busy_and_says_when_nothing_is_left() {
    let (dir, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[(
            "w1",
            "write_file",
            r#"{"file_path": "notes.txt", "content": "written"}"#,
        )]),
        Turn::text("written"),
        Turn::Reply(Reply {
            text: Some("still working".into()),
            ending: Ending::Stall { after_events: 1 },
            ..Reply::default()
        }),
    ]);
    let s = settings_in(dir.path(), project.path(), &fake.base_url());
    let ws = s.cwd.clone();
    let mut config = RuntimeConfig::new(s);
    config.yolo = true;
    let (rt, mut rx) = Runtime::start(config).await.unwrap();
    next(&mut rx, opened).await;
    rt.submit(Op::user_message("write the notes"));
    next(&mut rx, ended).await;
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.txt")).unwrap(),
        "written"
    );

    // While a request runs, undo is refused.
    rt.submit(Op::user_message("wait"));
    next(&mut rx, |e| {
        matches!(
            e,
            RuntimeEvent::Agent(tunacode_protocol::AgentEvent::RequestStarted { .. })
        )
        .then_some(())
    })
    .await;
    rt.submit(Op::Undo { to: None });
    let busy = next(&mut rx, failed).await;
    assert!(matches!(busy, OpFailure::Busy(_)), "{busy:?}");
    rt.submit(Op::Interrupt);
    next(&mut rx, ended).await;

    rt.submit(Op::Undo { to: None });
    let undone = next(&mut rx, |e| match e {
        RuntimeEvent::Rewound(u) => Some(u),
        _ => None,
    })
    .await;
    assert_eq!(undone.files.len(), 1, "{undone:?}");
    assert!(undone.files[0].path.ends_with("notes.txt"), "{undone:?}");
    assert!(
        !ws.join("notes.txt").exists(),
        "the file the request created is gone"
    );
    rt.submit(Op::Undo { to: Some(2) });
    let nothing = next(&mut rx, failed).await;
    assert!(
        matches!(&nothing, OpFailure::Invalid(m) if m.contains("nothing to undo")),
        "{nothing:?}"
    );
}

fn budget(e: RuntimeEvent) -> Option<tunacode_protocol::runtime::BudgetView> {
    match e {
        RuntimeEvent::Budget(view) => Some(view),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn budget_caps_are_said_set_for_the_run_and_refused_in_usd_for_an_unpriced_model() {
    use tunacode_protocol::runtime::BudgetScope;
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![Turn::Reply(Reply {
        text: Some("done".into()),
        usage: Some(tunacode_testkit::ScriptedUsage {
            prompt_tokens: 1200,
            completion_tokens: 300,
            cached_tokens: 0,
        }),
        ..Reply::default()
    })]);
    let (rt, mut rx) = open(dir.path(), &fake).await;
    next(&mut rx, opened).await;
    rt.submit(Op::DescribeBudget);
    assert!(next(&mut rx, budget).await.caps.is_empty());
    rt.submit(Op::SetBudget {
        scope: BudgetScope::Session,
        usd: Some(5.0),
        tokens: None,
    });
    let refused = next(&mut rx, failed).await;
    assert!(
        matches!(&refused, OpFailure::Invalid(m) if m.contains("price of openai:test-model is unknown")),
        "{refused:?}"
    );
    rt.submit(Op::SetBudget {
        scope: BudgetScope::Request,
        usd: None,
        tokens: Some(100_000),
    });
    let set = next(&mut rx, budget).await;
    assert_eq!(set.caps.len(), 1);
    assert_eq!(set.caps[0].tokens, Some(100_000));
    rt.submit(Op::user_message("hello"));
    // Said as soon as the call is settled (the status line follows every call)...
    let during = next(&mut rx, budget).await;
    assert_eq!(during.caps[0].spent_tokens, 1500);
    next(&mut rx, ended).await;
    // ...and again after the request.
    let after = next(&mut rx, budget).await;
    assert_eq!(after.caps[0].spent_tokens, 1500);
    assert!(
        after.describe().contains("request: 1500 of 100000 tokens"),
        "{}",
        after.describe()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_checks_file_waits_and_once_approved_runs_from_the_next_request() {
    use tunacode_protocol::AgentEvent;
    use tunacode_protocol::runtime::ProjectFileKind;
    let (dir, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let write = |id: &str, file: &str| {
        let args = format!(r#"{{"file_path": "{file}", "content": "x"}}"#);
        Turn::tool_calls(&[(id, "write_file", &args)])
    };
    let fake = FakeProvider::start(vec![
        write("w1", "a.txt"),
        Turn::text("one"),
        write("w2", "b.txt"),
        Turn::text("two"),
    ]);
    std::fs::create_dir_all(project.path().join(".tunacode")).unwrap();
    let checks = r#"[{"name": "ok", "kind": "test", "command": "true"}]"#;
    std::fs::write(project.path().join(".tunacode/checks.json"), checks).unwrap();
    let s = settings_in(dir.path(), project.path(), &fake.base_url());
    let mut config = RuntimeConfig::new(s);
    config.yolo = true;
    let (rt, mut rx) = Runtime::start(config).await.unwrap();
    let waiting = next(&mut rx, |e| match e {
        RuntimeEvent::ProjectFilePending(p) => Some(p),
        _ => None,
    })
    .await;
    assert_eq!(waiting.names, vec!["ok (`true`)".to_string()]);
    // Approving needs the content to be what was shown: a file changed since is refused.
    std::fs::write(
        project.path().join(".tunacode/checks.json"),
        checks.replace("true", "false"),
    )
    .unwrap();
    rt.submit(Op::ApproveProjectFile {
        kind: ProjectFileKind::Checks,
    });
    let refused = next(&mut rx, failed).await;
    assert!(
        refused.to_string().contains("changed since it was shown"),
        "{refused}"
    );
    std::fs::write(project.path().join(".tunacode/checks.json"), checks).unwrap();
    let ran_check = |e: RuntimeEvent| match e {
        RuntimeEvent::Agent(AgentEvent::CheckFinished { check, .. }) => Some(Some(check)),
        RuntimeEvent::RequestEnded(_) => Some(None),
        _ => None,
    };
    rt.submit(Op::user_message("first"));
    assert_eq!(
        next(&mut rx, ran_check).await,
        None,
        "not approved: not run"
    );
    rt.submit(Op::ApproveProjectFile {
        kind: ProjectFileKind::Checks,
    });
    let described = next(&mut rx, |e| match e {
        RuntimeEvent::ProjectFiles { text, .. } => Some(text),
        _ => None,
    })
    .await;
    assert!(described.contains("approved"), "{described}");
    rt.submit(Op::user_message("second"));
    let check = next(&mut rx, ran_check)
        .await
        .expect("the approved check ran");
    assert_eq!(check.name, "ok");
    next(&mut rx, ended).await;
}
