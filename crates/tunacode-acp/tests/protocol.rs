//! The protocol mapping, driven from the crate's client side against the real agent in process (the
//! fake provider behind it).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod editor;

use agent_client_protocol::v1::schema::{
    ListSessionsRequest, LoadSessionRequest, PermissionOptionKind, SessionUpdate,
    SetSessionConfigOptionRequest, SetSessionModeRequest, StopReason, ToolCallContent,
    ToolCallStatus, ToolKind,
};
use editor::{Editor, chunk_text, flags, setup};
use tunacode_testkit::{Reply, Turn};

fn edit(id: &str, from: &str, to: &str) -> Turn {
    let args = serde_json::json!({"file_path": "a.txt", "target": from, "replacement": to});
    Turn::tool_calls(&[(id, "update_file", &args.to_string())])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_asks_permission_once_then_always_and_shows_its_diff() {
    let (env, fake) = setup(vec![
        edit("c1", "one", "two"),
        Turn::text("first"),
        edit("c2", "two", "three"),
        Turn::text("second"),
        edit("c3", "three", "four"),
        Turn::text("third"),
    ]);
    std::fs::write(env.workspace().join("a.txt"), "one\n").unwrap();
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    editor.answer_with(&[
        PermissionOptionKind::AllowOnce,
        PermissionOptionKind::AllowAlways,
    ]);

    let first = editor.prompt(&session, "edit it").await;
    assert_eq!(first.stop_reason, StopReason::EndTurn);
    let updates = editor.drain();
    let call = updates.iter().find_map(|u| match u {
        SessionUpdate::ToolCall(c) => Some(c),
        _ => None,
    });
    let call = call.expect("a tool_call update");
    assert_eq!(
        (call.kind, call.title.as_str()),
        (ToolKind::Edit, "Edit a.txt")
    );
    assert!(call.locations[0].path.ends_with("a.txt"));
    let done = updates
        .iter()
        .find_map(|u| match u {
            SessionUpdate::ToolCallUpdate(t)
                if t.fields.status == Some(ToolCallStatus::Completed) =>
            {
                Some(t)
            }
            _ => None,
        })
        .expect("the call completes");
    let diff = done
        .fields
        .content
        .as_ref()
        .unwrap()
        .iter()
        .find_map(|c| match c {
            ToolCallContent::Diff(d) => Some(d),
            _ => None,
        });
    let diff = diff.expect("a diff in the tool-call update");
    assert_eq!(
        (diff.old_text.as_deref(), diff.new_text.as_str()),
        (Some("one\n"), "two\n")
    );

    assert_eq!(
        editor.prompt(&session, "again").await.stop_reason,
        StopReason::EndTurn
    );
    assert_eq!(
        editor.prompt(&session, "and again").await.stop_reason,
        StopReason::EndTurn
    );
    let asked = editor.seen(|s| s.permissions.clone());
    assert_eq!(asked.len(), 2, "allowed always after the second ask");
    let kinds: Vec<_> = asked[0].options.iter().map(|o| o.kind).collect();
    assert_eq!(
        kinds,
        [
            PermissionOptionKind::AllowOnce,
            PermissionOptionKind::AllowAlways,
            PermissionOptionKind::RejectOnce
        ]
    );
    let preview = asked[0].tool_call.fields.content.as_ref().unwrap();
    assert!(
        preview
            .iter()
            .any(|c| matches!(c, ToolCallContent::Diff(d) if d.new_text == "two\n")),
        "the permission shows the edit before it runs: {preview:?}"
    );
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("a.txt")).unwrap(),
        "four\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_edit_fails_its_call_and_changes_nothing() {
    let (env, fake) = setup(vec![
        edit("c1", "one", "two"),
        Turn::text("ok, not editing"),
    ]);
    std::fs::write(env.workspace().join("a.txt"), "one\n").unwrap();
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    editor.answer_with(&[PermissionOptionKind::RejectOnce]);
    assert_eq!(
        editor.prompt(&session, "edit").await.stop_reason,
        StopReason::EndTurn
    );
    let failed = editor.drain().into_iter().any(|u| {
        matches!(u, SessionUpdate::ToolCallUpdate(t) if t.fields.status == Some(ToolCallStatus::Failed))
    });
    assert!(failed, "the rejected call is reported failed");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("a.txt")).unwrap(),
        "one\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_ends_the_turn_as_cancelled_and_keeps_the_partial_answer() {
    let slow = Turn::Reply(Reply {
        text: Some("word ".repeat(400)),
        chunk_chars: 5,
        delay_ms: 20,
        ..Reply::default()
    });
    let (env, fake) = setup(vec![slow, Turn::text("fresh answer")]);
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    let prompt = {
        let cx = editor.cx.clone();
        let session = session.clone();
        tokio::spawn(async move {
            cx.send_request(agent_client_protocol::v1::schema::PromptRequest::new(
                session,
                vec![agent_client_protocol::v1::schema::ContentBlock::Text(
                    agent_client_protocol::v1::schema::TextContent::new("talk"),
                )],
            ))
            .block_task()
            .await
        })
    };
    editor.wait_for(|u| chunk_text(u).is_some()).await;
    editor.cancel(&session);
    let response = tokio::time::timeout(editor::LIMIT, prompt)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(response.stop_reason, StopReason::Cancelled);
    let saved = env.only_session().to_string();
    assert!(
        saved.contains("[INTERRUPTED]"),
        "the partial answer is kept"
    );

    let next = editor.prompt(&session, "go on").await;
    assert_eq!(
        next.stop_reason,
        StopReason::EndTurn,
        "the session goes on after a cancel"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_session_loads_in_a_second_connection_with_its_history() {
    let (env, fake) = setup(vec![edit("c1", "one", "two"), Turn::text("all done")]);
    std::fs::write(env.workspace().join("a.txt"), "one\n").unwrap();
    let session = {
        let editor = Editor::connect(&env, flags(&fake)).await;
        let session = editor.new_session(&env.workspace()).await;
        editor.answer_with(&[PermissionOptionKind::AllowOnce]);
        editor.prompt(&session, "edit a please").await;
        session
    };

    let mut second = Editor::connect(&env, flags(&fake)).await;
    let init = second.initialize(false).await;
    assert!(init.agent_capabilities.load_session);
    let listed = second
        .request(ListSessionsRequest::new().cwd(env.workspace()))
        .await
        .unwrap();
    assert!(
        listed
            .sessions
            .iter()
            .any(|s| s.session_id.to_string() == session)
    );
    second
        .request(LoadSessionRequest::new(session.clone(), env.workspace()))
        .await
        .unwrap();
    let replayed = second.drain();
    let texts: Vec<&str> = replayed.iter().filter_map(chunk_text).collect();
    assert_eq!(texts.first(), Some(&"edit a please"));
    assert!(texts.contains(&"all done"), "{texts:?}");
    assert!(
        replayed
            .iter()
            .any(|u| matches!(u, SessionUpdate::ToolCall(c) if c.title == "Edit a.txt"))
    );
    assert!(
        replayed
            .iter()
            .any(|u| matches!(u, SessionUpdate::ToolCallUpdate(t)
        if t.fields.status == Some(ToolCallStatus::Completed)))
    );

    let missing = second
        .request(LoadSessionRequest::new("no-such-session", env.workspace()))
        .await;
    assert!(missing.is_err(), "an unknown session is an error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editors_unsaved_buffer_is_what_the_agent_reads_and_edits() {
    let read = serde_json::json!({"file_path": "a.txt"}).to_string();
    let (env, fake) = setup(vec![
        Turn::tool_calls(&[("r1", "read_file", &read)]),
        edit("c1", "unsaved", "edited"),
        Turn::text("done"),
    ]);
    let file = env.workspace().canonicalize().unwrap().join("a.txt");
    std::fs::write(&file, "saved on disk\n").unwrap();
    let editor = Editor::connect(&env, flags(&fake)).await;
    editor.initialize(true).await;
    let session = editor.open_session(&env.workspace()).await;
    editor.buffer(&file, "unsaved text\n");
    editor.set_mode(&session, "yolo").await;
    assert_eq!(
        editor.prompt(&session, "edit").await.stop_reason,
        StopReason::EndTurn
    );
    assert!(editor.seen(|s| s.reads.contains(&file)));
    let writes = editor.seen(|s| s.writes.clone());
    assert_eq!(writes, [(file.clone(), "edited text\n".to_string())]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "saved on disk\n");
    assert!(
        editor.seen(|s| s.permissions.is_empty()),
        "yolo mode asks nothing"
    );
    let second_request = &fake.requests()[1].raw_body;
    assert!(
        second_request.contains("unsaved text"),
        "the model saw the buffer"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_iteration_limit_is_asked_and_stopping_ends_with_max_turn_requests() {
    let read = serde_json::json!({"file_path": "a.txt"}).to_string();
    let (env, fake) = setup(vec![
        Turn::tool_calls(&[("r1", "read_file", &read)]),
        Turn::tool_calls(&[("r2", "read_file", &read)]),
    ]);
    std::fs::write(env.workspace().join("a.txt"), "x\n").unwrap();
    let mut flags = flags(&fake);
    flags.max_iterations = Some(1);
    let editor = Editor::connect(&env, flags).await;
    let session = editor.new_session(&env.workspace()).await;
    editor.answer_with(&[PermissionOptionKind::RejectOnce]);
    let response = editor.prompt(&session, "loop").await;
    assert_eq!(response.stop_reason, StopReason::MaxTurnRequests);
    let asked = editor.seen(|s| s.permissions.clone());
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0]
            .tool_call
            .fields
            .title
            .as_deref()
            .unwrap()
            .contains("limit")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_option_switches_the_model_for_the_next_prompt() {
    let (env, fake) = setup(vec![Turn::text("hi")]);
    let local = serde_json::json!({
        "providers": {"local": {"base_url": fake.base_url(), "wire_api": "openai-chat"}}
    });
    std::fs::write(env.config_file(), local.to_string()).unwrap();
    let editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    let unusable = editor
        .request(SetSessionConfigOptionRequest::new(
            session.clone(),
            "model",
            "openai:gpt-x",
        ))
        .await
        .unwrap_err();
    assert!(
        unusable.message.contains("OPENAI_API_KEY"),
        "says what is missing: {unusable:?}"
    );
    let switched = editor
        .request(SetSessionConfigOptionRequest::new(
            session.clone(),
            "model",
            "local:other-model",
        ))
        .await
        .unwrap();
    let option = serde_json::to_value(&switched.config_options[0]).unwrap();
    assert_eq!(option["currentValue"], "local:other-model");
    assert_eq!(option["category"], "model");
    editor.prompt(&session, "hello").await;
    assert_eq!(fake.requests()[0].body["model"], "other-model");
    let bad_mode = editor
        .request(SetSessionModeRequest::new(session.clone(), "turbo"))
        .await;
    assert!(bad_mode.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn built_in_commands_answer_without_the_model_and_are_announced() {
    let (env, fake) = setup(vec![]);
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    let announced = editor
        .wait_for(|u| matches!(u, SessionUpdate::AvailableCommandsUpdate(_)))
        .await;
    let SessionUpdate::AvailableCommandsUpdate(commands) = announced else {
        unreachable!()
    };
    let names: Vec<_> = commands
        .available_commands
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert!(
        names.contains(&"compact") && names.contains(&"undo"),
        "{names:?}"
    );

    let response = editor.prompt(&session, "/permissions").await;
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    let said: String = editor.drain().iter().filter_map(chunk_text).collect();
    assert!(said.to_lowercase().contains("sandbox"), "{said}");
    assert!(
        fake.requests().is_empty(),
        "no model call for a built-in command"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_and_links_are_attached_like_file_mentions() {
    use agent_client_protocol::v1::schema::{
        ContentBlock, EmbeddedResource, EmbeddedResourceResource, PromptRequest, ResourceLink,
        TextContent, TextResourceContents,
    };
    let (env, fake) = setup(vec![Turn::text("read them")]);
    let root = env.workspace().canonicalize().unwrap();
    std::fs::write(root.join("linked.rs"), "fn linked() {}\n").unwrap();
    let editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    let uri = |name: &str| format!("file://{}", root.join(name).display());
    let prompt = vec![
        ContentBlock::Text(TextContent::new("compare these")),
        ContentBlock::Resource(EmbeddedResource::new(
            EmbeddedResourceResource::TextResourceContents(TextResourceContents::new(
                "unsaved notes",
                uri("notes.md"),
            )),
        )),
        ContentBlock::ResourceLink(ResourceLink::new("linked.rs", uri("linked.rs"))),
    ];
    editor
        .request(PromptRequest::new(session, prompt))
        .await
        .unwrap();
    let sent = &fake.requests()[0].raw_body;
    assert!(sent.contains("compare these"), "{sent}");
    assert!(
        sent.contains(r#"<file path=\"notes.md\">\nunsaved notes\n</file>"#),
        "{sent}"
    );
    assert!(
        sent.contains(r#"<file path=\"linked.rs\">\nfn linked() {}\n</file>"#),
        "{sent}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_editor_that_reads_but_does_not_write_leaves_files_to_the_disk() {
    use agent_client_protocol::v1::schema::{ClientCapabilities, FileSystemCapabilities};
    let read = serde_json::json!({"file_path": "a.txt"}).to_string();
    let (env, fake) = setup(vec![
        Turn::tool_calls(&[("r1", "read_file", &read)]),
        edit("c1", "disk", "edited"),
        Turn::text("done"),
    ]);
    let file = env.workspace().canonicalize().unwrap().join("a.txt");
    std::fs::write(&file, "disk text\n").unwrap();
    let editor = Editor::connect(&env, flags(&fake)).await;
    let caps = ClientCapabilities::new().fs(FileSystemCapabilities::new().read_text_file(true));
    editor.initialize_with(caps).await;
    let session = editor.open_session(&env.workspace()).await;
    editor.buffer(&file, "unsaved text\n");
    editor.set_mode(&session, "yolo").await;
    editor.prompt(&session, "edit").await;
    assert!(editor.seen(|s| s.reads.is_empty() && s.writes.is_empty()));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "edited text\n");
}
