//! Opening and closing sessions: `session/close`, loading a session that is open, ids that are not
//! session ids.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod editor;

use agent_client_protocol::v1::schema::{
    CloseSessionRequest, LoadSessionRequest, SessionUpdate, StopReason,
};
use editor::{Editor, chunk_text, flags, setup};
use tunacode_testkit::Turn;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_session_takes_no_more_prompts_and_loads_again() {
    let (env, fake) = setup(vec![Turn::text("first answer"), Turn::text("after reload")]);
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    assert_eq!(
        editor.prompt(&session, "hello").await.stop_reason,
        StopReason::EndTurn
    );
    editor
        .request(CloseSessionRequest::new(session.clone()))
        .await
        .unwrap();
    let after_close = editor
        .request(agent_client_protocol::v1::schema::PromptRequest::new(
            session.clone(),
            vec![agent_client_protocol::v1::schema::ContentBlock::Text(
                agent_client_protocol::v1::schema::TextContent::new("still there?"),
            )],
        ))
        .await;
    assert!(after_close.is_err(), "a closed session is not open");
    editor.drain();
    editor
        .request(LoadSessionRequest::new(session.clone(), env.workspace()))
        .await
        .unwrap();
    let replayed: Vec<String> = editor
        .drain()
        .iter()
        .filter_map(chunk_text)
        .map(str::to_string)
        .collect();
    assert_eq!(replayed, ["hello", "first answer"]);
    assert_eq!(
        editor.prompt(&session, "again").await.stop_reason,
        StopReason::EndTurn
    );
    let retitled = editor
        .drain()
        .iter()
        .any(|u| matches!(u, SessionUpdate::SessionInfoUpdate(_)));
    assert!(!retitled, "a loaded session keeps its title");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loading_a_session_that_is_open_starts_it_over_from_what_it_saved() {
    let (env, fake) = setup(vec![Turn::text("saved answer"), Turn::text("next answer")]);
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    editor.prompt(&session, "question").await;
    editor.drain();
    editor
        .request(LoadSessionRequest::new(session.clone(), env.workspace()))
        .await
        .unwrap();
    let replayed = editor.drain();
    assert!(
        replayed
            .iter()
            .any(|u| matches!(u, SessionUpdate::AgentMessageChunk(_))),
        "{replayed:?}"
    );
    assert_eq!(
        editor.prompt(&session, "more").await.stop_reason,
        StopReason::EndTurn
    );
    assert_eq!(env.session_files().len(), 1, "one session, one file");
    let saved = env.only_session().to_string();
    assert!(saved.contains("saved answer") && saved.contains("next answer"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_id_that_is_a_path_is_refused() {
    let (env, fake) = setup(vec![]);
    std::fs::write(env.workspace().join("x.json"), "{}").unwrap();
    let editor = Editor::connect(&env, flags(&fake)).await;
    editor.initialize(false).await;
    for id in ["../../ws/x", "a/b"] {
        let refused = editor
            .request(LoadSessionRequest::new(id, env.workspace()))
            .await
            .unwrap_err();
        assert_eq!(i32::from(refused.code), -32602, "{id}: {refused:?}");
    }
    let missing = editor
        .request(LoadSessionRequest::new("no-such-session", env.workspace()))
        .await
        .unwrap_err();
    assert_eq!(i32::from(missing.code), -32002, "{missing:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_or_reloading_a_session_mid_turn_stops_and_saves_the_turn() {
    let args = serde_json::json!({"file_path": "a.txt", "content": "x"}).to_string();
    let (env, fake) = setup(vec![
        Turn::text("saved first"),
        Turn::tool_calls(&[("w1", "write_file", &args)]),
    ]);
    let editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    editor.prompt(&session, "one").await;
    editor.hold_permissions();
    let prompt = editor
        .cx
        .send_request(agent_client_protocol::v1::schema::PromptRequest::new(
            session.clone(),
            vec![agent_client_protocol::v1::schema::ContentBlock::Text(
                agent_client_protocol::v1::schema::TextContent::new("two"),
            )],
        ));
    let waiting = tokio::spawn(async move { prompt.block_task().await });
    editor.wait_for_held().await;
    // The turn waits on the editor's permission; loading the session closes the open one first.
    editor
        .request(LoadSessionRequest::new(session.clone(), env.workspace()))
        .await
        .unwrap();
    let ended = tokio::time::timeout(editor::LIMIT, waiting)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(ended.stop_reason, StopReason::Cancelled);
    editor.release_cancelled();
    let saved = env.only_session().to_string();
    assert!(
        saved.contains("\"w1\""),
        "the interrupted turn was saved: {saved}"
    );
    assert!(!env.workspace().join("a.txt").exists());
    editor
        .request(CloseSessionRequest::new(session.clone()))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn built_in_commands_that_fail_say_why_and_end_the_turn() {
    let (env, fake) = setup(vec![]);
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    for (command, says) in [
        ("/undo", "nothing to undo"),
        ("/sandbox turbo", "turbo"),
        ("/undo zero", "/undo takes"),
    ] {
        let response = editor.prompt(&session, command).await;
        assert_eq!(response.stop_reason, StopReason::EndTurn, "{command}");
        let said: String = editor.drain().iter().filter_map(chunk_text).collect();
        assert!(said.contains(says), "{command}: {said}");
    }
    assert!(fake.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn journal_lines_kept_aside_on_load_are_a_warning_notice() {
    use agent_client_protocol::v1::schema::{
        ClientCapabilities, ClientSessionCapabilities, NoticeCapabilities, NoticeSeverity,
    };
    use tunacode_protocol::Message;
    use tunacode_store::{Journal, JournalBase, JournalEntry, JournalRecord, SessionStore};
    let (env, fake) = setup(vec![Turn::text("saved answer")]);
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    let caps = ClientCapabilities::new()
        .session(ClientSessionCapabilities::new().notices(NoticeCapabilities::new()));
    editor.initialize_with(caps).await;
    let session = editor.open_session(&env.workspace()).await;
    editor.prompt(&session, "question").await;
    editor
        .request(CloseSessionRequest::new(session.clone()))
        .await
        .unwrap();
    // What a killed run would leave, with a line damaged after the one that is fine.
    let file = env.session_files()[0].clone();
    let saved = SessionStore::load_file(&file).unwrap();
    let base = JournalBase {
        bytes: std::fs::metadata(&file).unwrap().len(),
        messages: saved.messages.len(),
        modified: saved.last_modified,
    };
    let journal = Journal::new(file.with_extension("jsonl"));
    let line = JournalEntry {
        at: base.messages,
        record: JournalRecord::Message(Message::user("written before the kill")),
    };
    journal.append(&base, &[line]).unwrap();
    let mut text = std::fs::read(journal.path()).unwrap();
    text.extend_from_slice(b"{\"at\":9,\"message\":{\"kind\n");
    std::fs::write(journal.path(), text).unwrap();
    editor.drain();
    editor
        .request(LoadSessionRequest::new(session.clone(), env.workspace()))
        .await
        .unwrap();
    let notice = editor
        .wait_for(|u| matches!(u, SessionUpdate::Notice(n) if n.title.contains("aside")))
        .await;
    let SessionUpdate::Notice(notice) = notice else {
        unreachable!()
    };
    assert_eq!(notice.severity, NoticeSeverity::Warning);
    assert!(
        notice
            .title
            .contains("Recovered 1 message(s); kept 1 line(s) aside in"),
        "{}",
        notice.title
    );
}
