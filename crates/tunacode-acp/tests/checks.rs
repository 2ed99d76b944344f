//! The project's checks over the editor protocol: each run is a tool call of its own with the end of
//! its output, and the verdict follows the answer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod editor;

use agent_client_protocol::v1::schema::{
    PermissionOptionKind, SessionUpdate, StopReason, ToolCallStatus, ToolKind,
};
use editor::{Editor, chunk_text, flags, setup};
use serde_json::json;
use tunacode_testkit::Turn;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_is_a_tool_call_and_the_verdict_ends_the_answer() {
    let write = json!({"file_path": "a.txt", "content": "one"}).to_string();
    let (env, fake) = setup(vec![
        Turn::tool_calls(&[("w1", "write_file", &write)]),
        Turn::text("Wrote it."),
    ]);
    let checks = json!({"settings": {"checks": [
        {"name": "has a.txt", "kind": "test", "command": "grep -q one a.txt && echo 'all good'"}
    ]}});
    std::fs::write(env.config_file(), checks.to_string()).unwrap();
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    editor.answer_with(&[PermissionOptionKind::AllowOnce]);
    let response = editor.prompt(&session, "write a.txt").await;
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    let updates = editor.drain();
    let check = updates
        .iter()
        .find_map(|u| match u {
            SessionUpdate::ToolCall(c) if c.title.starts_with("check ") => Some(c),
            _ => None,
        })
        .expect("the check's call");
    assert_eq!(check.title, "check has a.txt (completion)");
    assert_eq!(check.kind, ToolKind::Execute);
    assert_eq!(check.status, ToolCallStatus::Completed);
    let shown = serde_json::to_string(&check.content).unwrap();
    assert!(shown.contains("all good"), "{shown}");
    let said: String = updates.iter().filter_map(chunk_text).collect();
    assert!(said.ends_with("Verified: has a.txt passed."), "{said}");
}
