//! The engine against the fake provider over real HTTP, with the real tools in a temp workspace.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use pretty_assertions::assert_eq;
use serde_json::Value;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tunacode_core::history::{PRUNED_PLACEHOLDER, check_invariants};
mod common;

use common::{agent, new_session};
use tunacode_core::{
    ApprovalDecision, ApprovalRequest, Approver, AutoApprove, RequestError, SessionHandle,
    ToolCallStatus,
};
use tunacode_protocol::{FinishReason, Message, Part};
use tunacode_store::SessionStore;
use tunacode_testkit::{FakeProvider, Turn};

#[tokio::test]
async fn registry_records_match_the_answers_sent_back() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "A").unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[
            ("ok", "read_file", r#"{"file_path": "a.txt"}"#),
            ("missing", "read_file", r#"{"file_path": "nope.txt"}"#),
            ("unknown", "teleport", "{}"),
            ("badargs", "read_file", r#"{"file_path": "#),
        ]),
        Turn::text("done"),
    ]);
    let agent = agent(
        &fake,
        dir.path(),
        Arc::new(AutoApprove),
        new_session(dir.path()),
    );
    let outcome = agent
        .process_request("read", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.reason, FinishReason::Answered);
    let session = agent.session().snapshot();
    let statuses: Vec<(String, ToolCallStatus)> = session
        .runtime
        .tool_registry
        .records()
        .iter()
        .map(|r| (r.tool_call_id.clone(), r.status))
        .collect();
    assert_eq!(
        statuses,
        [
            ("ok".into(), ToolCallStatus::Completed),
            ("missing".into(), ToolCallStatus::Failed),
            ("unknown".into(), ToolCallStatus::Failed),
            ("badargs".into(), ToolCallStatus::Failed),
        ]
    );
    let answers = &session.messages[2].parts;
    let kinds: Vec<(&str, &str)> = answers
        .iter()
        .map(|p| (p.part_kind(), p.tool_call_id().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("tool-return", "ok"),
            ("retry-prompt", "missing"),
            ("retry-prompt", "unknown"),
            ("retry-prompt", "badargs")
        ]
    );
    let record = session.runtime.tool_registry.get("ok").unwrap();
    assert!(record.result.as_deref().unwrap().contains("A"));
    check_invariants(&session.messages).unwrap();
}

#[tokio::test]
async fn history_is_pruned_and_sanitized_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = new_session(dir.path());
    let big = "x".repeat(400);
    session.messages = std::sync::Arc::new(vec![
        Message::request(vec![
            Part::system_prompt("old system"),
            Part::user_prompt("first"),
        ]),
        Message::response(vec![Part::tool_call("t1", "read_file", Value::Null)]),
        Message::request(vec![Part::tool_return("t1", "read_file", big.clone())]),
        Message::response(vec![Part::tool_call("t2", "read_file", Value::Null)]),
        Message::request(vec![Part::tool_return("t2", "read_file", big.clone())]),
        Message::response(vec![
            Part::text("read both"),
            Part::tool_call("dangling", "bash", Value::Null),
        ]),
        Message::user("never answered"),
    ]);
    let fake = FakeProvider::start(vec![Turn::text("ok")]);
    let agent = agent(&fake, dir.path(), Arc::new(AutoApprove), session);
    agent
        .process_request("next", CancellationToken::new())
        .await
        .unwrap();
    let body = &fake.requests()[0].body;
    let msgs = body["messages"].as_array().unwrap();
    let summary: Vec<String> = msgs
        .iter()
        .map(|m| {
            format!(
                "{}:{}",
                m["role"].as_str().unwrap(),
                m["content"]
                    .as_str()
                    .unwrap_or("")
                    .chars()
                    .take(12)
                    .collect::<String>()
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            "system:SYSTEM",
            "user:first",
            "assistant:",
            "tool:[Old tool re",
            "assistant:",
            "tool:xxxxxxxxxxxx",
            "assistant:read both",
            "user:next"
        ]
    );
    assert!(msgs[6].get("tool_calls").is_none(), "dangling call removed");
    assert_eq!(msgs[3]["content"], PRUNED_PLACEHOLDER);
    let stored = agent.session().snapshot().messages;
    assert!(
        stored
            .iter()
            .flat_map(|m| &m.parts)
            .all(|p| !matches!(p, Part::SystemPrompt(_)))
    );
    check_invariants(&stored).unwrap();
}

/// Blocks until cancelled, after telling the test it was asked.
struct BlockingApprover {
    asked: Arc<Notify>,
}

#[async_trait]
impl Approver for BlockingApprover {
    async fn approve(&self, _request: &ApprovalRequest) -> ApprovalDecision {
        self.asked.notify_one();
        std::future::pending().await
    }
}

#[tokio::test]
async fn abort_during_tools_cancels_in_flight_calls_and_later_calls_never_run() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![Turn::tool_calls(&[
        ("b1", "bash", r#"{"command": "touch ran.txt"}"#),
        (
            "w1",
            "write_file",
            r#"{"file_path": "late.txt", "content": "x"}"#,
        ),
    ])]);
    let asked = Arc::new(Notify::new());
    let approver = Arc::new(BlockingApprover {
        asked: asked.clone(),
    });
    let agent = Arc::new(agent(&fake, dir.path(), approver, new_session(dir.path())));
    let cancel = CancellationToken::new();
    let run = tokio::spawn({
        let (agent, cancel) = (agent.clone(), cancel.clone());
        async move { agent.process_request("do it", cancel).await }
    });
    tokio::time::timeout(Duration::from_secs(10), asked.notified())
        .await
        .expect("approval asked");
    cancel.cancel();
    let result = tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(result, Err(RequestError::Aborted)), "{result:?}");
    assert!(!dir.path().join("ran.txt").exists());
    assert!(
        !dir.path().join("late.txt").exists(),
        "a call after the abort ran"
    );
    let session = agent.session().snapshot();
    let statuses: Vec<ToolCallStatus> = session
        .runtime
        .tool_registry
        .records()
        .iter()
        .map(|r| r.status)
        .collect();
    assert_eq!(
        statuses,
        [ToolCallStatus::Cancelled, ToolCallStatus::Cancelled]
    );
    check_invariants(&session.messages).unwrap();
    let saved = SessionStore::load_file(
        &SessionStore::new(dir.path().join(".sessions")).path_of(&session.project_id, &session.id),
    )
    .unwrap();
    assert_eq!(saved.messages, session.messages);
}

/// Appends a message to the session from outside the run, then approves.
struct AppendingApprover {
    session: std::sync::Mutex<Option<SessionHandle>>,
}

#[async_trait]
impl Approver for AppendingApprover {
    async fn approve(&self, _request: &ApprovalRequest) -> ApprovalDecision {
        if let Some(handle) = self.session.lock().unwrap().as_ref() {
            std::sync::Arc::make_mut(&mut handle.lock().messages)
                .push(Message::user("typed while the agent worked"));
        }
        ApprovalDecision::Approve
    }
}

#[tokio::test]
async fn messages_appended_from_outside_during_the_run_are_kept_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[(
            "w",
            "write_file",
            r#"{"file_path": "f.txt", "content": "x"}"#,
        )]),
        Turn::text("written"),
    ]);
    let approver = Arc::new(AppendingApprover {
        session: std::sync::Mutex::new(None),
    });
    let agent = agent(&fake, dir.path(), approver.clone(), new_session(dir.path()));
    *approver.session.lock().unwrap() = Some(agent.session().clone());
    agent
        .process_request("write", CancellationToken::new())
        .await
        .unwrap();
    let messages = agent.session().snapshot().messages;
    assert_eq!(messages.len(), 5);
    assert_eq!(messages[3].text(), "written");
    assert_eq!(messages[4], Message::user("typed while the agent worked"));
}

#[tokio::test]
async fn tool_calls_written_as_text_run_and_pair_with_their_answers() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha").unwrap();
    let fake = FakeProvider::start(vec![
        Turn::text(
            "I will read it.\n```json\n{\"tool\": \"read_file\", \"args\": {\"file_path\": \"a.txt\"}}\n```",
        ),
        Turn::text("It says alpha."),
    ]);
    let agent = agent(
        &fake,
        dir.path(),
        Arc::new(AutoApprove),
        new_session(dir.path()),
    );
    let outcome = agent
        .process_request("read a.txt", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.response, "It says alpha.");
    let second = &fake.requests()[1].body["messages"];
    let call = &second[2]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "read_file");
    assert_eq!(second[3]["role"], "tool");
    assert_eq!(second[3]["tool_call_id"], call["id"]);
    assert!(second[3]["content"].as_str().unwrap().contains("alpha"));
    check_invariants(&agent.session().snapshot().messages).unwrap();
}

#[tokio::test]
async fn a_malformed_text_tool_call_is_reported_to_the_model_not_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::text(
            "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"file_path\": \"a.txt\"\n</tool_call>",
        ),
        Turn::text("Sorry, fixed."),
    ]);
    let agent = agent(
        &fake,
        dir.path(),
        Arc::new(AutoApprove),
        new_session(dir.path()),
    );
    agent
        .process_request("read a.txt", CancellationToken::new())
        .await
        .unwrap();
    let second = &fake.requests()[1].body["messages"];
    assert_eq!(second[2]["tool_calls"][0]["function"]["name"], "read_file");
    let answer = second[3]["content"].as_str().unwrap();
    assert_eq!(second[3]["role"], "tool");
    assert!(
        answer.contains("Invalid arguments for `read_file`") && answer.contains("not valid JSON"),
        "{answer}"
    );
}

#[tokio::test]
async fn old_tool_outputs_are_pruned_between_iterations_of_one_request() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "first file contents ".repeat(50)).unwrap();
    std::fs::write(dir.path().join("b.txt"), "second file contents ".repeat(50)).unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("r1", "read_file", r#"{"file_path": "a.txt"}"#)]),
        Turn::tool_calls(&[("r2", "read_file", r#"{"file_path": "b.txt"}"#)]),
        Turn::text("done"),
    ]);
    let agent = agent(
        &fake,
        dir.path(),
        Arc::new(AutoApprove),
        new_session(dir.path()),
    );
    agent
        .process_request("read both", CancellationToken::new())
        .await
        .unwrap();
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    let second = requests[1].body.to_string();
    assert!(
        second.contains("first file contents"),
        "nothing to prune yet"
    );
    let third = requests[2].body.to_string();
    assert!(
        !third.contains("first file contents") && third.contains(PRUNED_PLACEHOLDER),
        "the older output was pruned before the third call: {third}"
    );
    assert!(
        third.contains("second file contents"),
        "the newest output is kept"
    );
}
