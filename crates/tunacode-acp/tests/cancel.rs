//! Cancelling: right after a prompt, while a permission is being decided, during the iteration-limit
//! question; every later prompt gets its own answer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod editor;

use agent_client_protocol::v1::schema::{
    ContentBlock, PromptRequest, PromptResponse, SessionUpdate, StopReason, TextContent,
    ToolCallStatus,
};
use editor::{Editor, chunk_text, flags, setup};
use serde_json::json;
use tunacode_testkit::Turn;

/// Sends a prompt now and waits for its answer in a task of its own.
fn spawn_prompt(
    editor: &Editor,
    session: &str,
    text: &str,
) -> tokio::task::JoinHandle<Result<PromptResponse, agent_client_protocol::Error>> {
    let prompt = vec![ContentBlock::Text(TextContent::new(text))];
    let sent = editor
        .cx
        .send_request(PromptRequest::new(session.to_string(), prompt));
    tokio::spawn(async move { sent.block_task().await })
}

async fn answer(
    task: tokio::task::JoinHandle<Result<PromptResponse, agent_client_protocol::Error>>,
) -> PromptResponse {
    tokio::time::timeout(editor::LIMIT, task)
        .await
        .expect("the prompt is answered")
        .unwrap()
        .unwrap()
}

/// Sends `text`, cancels while the editor holds the question it brings (answering it `cancelled`, as
/// a client must), and checks the turn ends cancelled.
async fn cancel_while_asked(editor: &Editor, session: &str, text: &str) {
    editor.hold_permissions();
    let prompt = spawn_prompt(editor, session, text);
    editor.wait_for_held().await;
    editor.cancel(session);
    editor.release_cancelled();
    assert_eq!(answer(prompt).await.stop_reason, StopReason::Cancelled);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_right_after_a_prompt_leaves_the_next_prompt_its_own_answer() {
    // The first request may be stopped before it reaches the provider, so both turns answer alike.
    let (env, fake) = setup(vec![Turn::text("an answer"), Turn::text("an answer")]);
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    let first = spawn_prompt(&editor, &session, "first");
    editor.cancel(&session);
    assert_eq!(answer(first).await.stop_reason, StopReason::Cancelled);
    editor.drain();
    let second = editor.prompt(&session, "second").await;
    assert_eq!(second.stop_reason, StopReason::EndTurn);
    let said: String = editor.drain().iter().filter_map(chunk_text).collect();
    assert_eq!(said, "an answer", "the second prompt's own answer, whole");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_while_a_permission_is_open_ends_the_turn_quietly() {
    let args = json!({"file_path": "a.txt", "content": "x"}).to_string();
    let (env, fake) = setup(vec![
        Turn::tool_calls(&[("w1", "write_file", &args)]),
        Turn::text("next"),
    ]);
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    cancel_while_asked(&editor, &session, "write").await;
    assert_eq!(
        editor.prompt(&session, "again").await.stop_reason,
        StopReason::EndTurn
    );
    let updates = editor.drain();
    let said: String = updates.iter().filter_map(chunk_text).collect();
    assert!(!said.contains("question"), "no stray error is said: {said}");
    assert!(!env.workspace().join("a.txt").exists());
    let failed = updates.iter().any(|u| {
        matches!(u, SessionUpdate::ToolCallUpdate(t)
            if t.tool_call_id.to_string() == "w1" && t.fields.status == Some(ToolCallStatus::Failed))
    });
    assert!(failed, "the call ends failed: {updates:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_during_the_limit_question_fails_its_call() {
    let read = json!({"file_path": "a.txt"}).to_string();
    let (env, fake) = setup(vec![Turn::tool_calls(&[("r1", "read_file", &read)])]);
    std::fs::write(env.workspace().join("a.txt"), "x\n").unwrap();
    let mut flags = flags(&fake);
    flags.max_iterations = Some(1);
    let mut editor = Editor::connect(&env, flags).await;
    let session = editor.new_session(&env.workspace()).await;
    cancel_while_asked(&editor, &session, "loop").await;
    let question_call = editor.seen(|s| s.permissions[0].tool_call.tool_call_id.to_string());
    let closed = editor.drain().into_iter().any(|u| {
        matches!(u, SessionUpdate::ToolCallUpdate(t)
            if t.tool_call_id.to_string() == question_call
                && t.fields.status == Some(ToolCallStatus::Failed))
    });
    assert!(closed, "the question's own call does not dangle");
}
