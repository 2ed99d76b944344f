//! What a turn streams to the editor (thoughts, the plan from the todo list, usage, command output,
//! plan review, refusals) and how a cancel stops running tools, from the crate's client side.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod editor;

use agent_client_protocol::v1::schema::{
    ContentBlock, McpServer, McpServerStdio, NewSessionRequest, PermissionOptionKind,
    PlanEntryStatus, PromptRequest, SessionUpdate, StopReason, TextContent, ToolCallStatus,
    ToolKind,
};
use editor::{Editor, chunk_text, flags, setup};
use serde_json::json;
use tunacode_testkit::{Reply, ScriptedToolCall, Turn};

fn call(id: &str, name: &str, args: serde_json::Value) -> ScriptedToolCall {
    ScriptedToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.to_string(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thoughts_the_todo_plan_usage_and_command_output_stream_to_the_editor() {
    let (env, fake) = setup(vec![
        Turn::Reply(Reply {
            reasoning: Some("thinking it over".into()),
            tool_calls: vec![call(
                "t1",
                "todo",
                json!({"action": "add", "items": ["look", "fix"]}),
            )],
            ..Reply::default()
        }),
        Turn::tool_calls(&[(
            "b1",
            "bash",
            &json!({"command": "echo from-the-shell"}).to_string(),
        )]),
        Turn::text("all done"),
    ]);
    let mut flags = flags(&fake);
    flags.model = Some("openai:gpt-4.1".into());
    let mut editor = Editor::connect(&env, flags).await;
    let session = editor.new_session(&env.workspace()).await;
    editor.set_mode(&session, "yolo").await;
    assert_eq!(
        editor.prompt(&session, "work").await.stop_reason,
        StopReason::EndTurn
    );
    let updates = editor.drain();

    let titled = updates.iter().any(|u| {
        matches!(u, SessionUpdate::SessionInfoUpdate(i)
            if serde_json::to_value(i).unwrap()["title"] == "work")
    });
    assert!(titled, "the first prompt titles the session");
    let thought = updates
        .iter()
        .any(|u| matches!(u, SessionUpdate::AgentThoughtChunk(_)));
    assert!(thought, "reasoning streams as thought chunks");
    let plan = updates
        .iter()
        .find_map(|u| match u {
            SessionUpdate::Plan(p) => Some(p),
            _ => None,
        })
        .expect("the todo list as a plan");
    let entries: Vec<_> = plan
        .entries
        .iter()
        .map(|e| (e.content.as_str(), e.status.clone()))
        .collect();
    assert_eq!(
        entries,
        [
            ("look", PlanEntryStatus::Pending),
            ("fix", PlanEntryStatus::Pending)
        ]
    );
    let usage = updates.iter().find_map(|u| match u {
        SessionUpdate::UsageUpdate(u) => Some(u),
        _ => None,
    });
    let usage = usage.expect("usage for a model with a known window");
    assert!(usage.size > 0 && usage.used > 0, "{usage:?}");
    let shell = updates.iter().find_map(|u| match u {
        SessionUpdate::ToolCall(c) if c.kind == ToolKind::Execute => Some(c),
        _ => None,
    });
    assert_eq!(
        shell.expect("the command's call").title,
        "`echo from-the-shell`"
    );
    let output = updates.iter().find_map(|u| match u {
        SessionUpdate::ToolCallUpdate(t) if t.tool_call_id.to_string() == "b1" => {
            t.fields.content.clone()
        }
        _ => None,
    });
    let shown = serde_json::to_string(&output.expect("the command's result")).unwrap();
    assert!(shown.contains("from-the-shell"), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_stops_a_running_command_and_leaves_no_dangling_call() {
    let command = json!({"command": "echo started > marker && sleep 30"}).to_string();
    let (env, fake) = setup(vec![
        Turn::tool_calls(&[("s1", "bash", &command)]),
        Turn::text("next turn"),
    ]);
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    editor.answer_with(&[PermissionOptionKind::AllowOnce]);
    let prompt = {
        let (cx, session) = (editor.cx.clone(), session.clone());
        tokio::spawn(async move {
            let text = ContentBlock::Text(TextContent::new("wait"));
            cx.send_request(PromptRequest::new(session, vec![text]))
                .block_task()
                .await
        })
    };
    let marker = env.workspace().join("marker");
    tokio::time::timeout(editor::LIMIT, async {
        // The command's own output is the event that it runs; checked every 10 ms.
        while !marker.exists() {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the command starts");
    editor.cancel(&session);
    let response = tokio::time::timeout(editor::LIMIT, prompt)
        .await
        .expect("the turn ends before the command would")
        .unwrap()
        .unwrap();
    assert_eq!(response.stop_reason, StopReason::Cancelled);
    editor
        .wait_for(|u| {
            matches!(u, SessionUpdate::ToolCallUpdate(t)
            if t.tool_call_id.to_string() == "s1" && t.fields.status == Some(ToolCallStatus::Failed))
        })
        .await;
    // The session is saved as the interrupted request ends, which may come just after the editor
    // hears of the failed call: wait (bounded) for the save, then judge it.
    let deadline = std::time::Instant::now() + editor::LIMIT;
    let mut saved = env.only_session().to_string();
    while saved.matches("\"tool_call_id\":\"s1\"").count() < 2
        && std::time::Instant::now() < deadline
    {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        saved = env.only_session().to_string();
    }
    let mentions = saved.matches("\"tool_call_id\":\"s1\"").count();
    assert!(
        mentions >= 2,
        "the call and its answer are in the session (no dangling call): {saved}"
    );
    assert_eq!(
        editor.prompt(&session, "go on").await.stop_reason,
        StopReason::EndTurn
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_mode_asks_to_approve_the_plan_and_the_mode_follows() {
    let plan = "1. Read a.txt\n2. Change it";
    let (env, fake) = setup(vec![
        Turn::tool_calls(&[("p1", "present_plan", &json!({"plan": plan}).to_string())]),
        Turn::text("starting on the plan"),
    ]);
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    editor.set_mode(&session, "plan").await;
    editor.answer_with(&[PermissionOptionKind::AllowOnce]);
    assert_eq!(
        editor.prompt(&session, "plan it").await.stop_reason,
        StopReason::EndTurn
    );
    let asked = editor.seen(|s| s.permissions.clone());
    assert_eq!(asked.len(), 1);
    assert_eq!(
        asked[0].tool_call.fields.title.as_deref(),
        Some("Approve the plan?")
    );
    let updates = editor.drain();
    let mode = updates.iter().find_map(|u| match u {
        SessionUpdate::CurrentModeUpdate(m) => Some(m.current_mode_id.to_string()),
        _ => None,
    });
    assert_eq!(
        mode.as_deref(),
        Some("ask"),
        "an approved plan ends plan mode"
    );
    assert!(env.workspace().join("PLAN.md").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filtered_answer_ends_with_refusal() {
    let (env, fake) = setup(vec![Turn::Reply(Reply {
        text: Some("I can't".into()),
        finish_reason: Some("content_filter".into()),
        ..Reply::default()
    })]);
    let editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    assert_eq!(
        editor.prompt(&session, "something bad").await.stop_reason,
        StopReason::Refusal
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editors_mcp_servers_are_handed_to_the_runtime() {
    let (env, fake) = setup(vec![Turn::text("I see the tools")]);
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    editor.initialize(false).await;
    let server = McpServer::Stdio(McpServerStdio::new(
        "editor-tools",
        tunacode_testkit::fake_mcp_binary(),
    ));
    let session = editor
        .request(NewSessionRequest::new(env.workspace()).mcp_servers(vec![server]))
        .await
        .unwrap()
        .session_id
        .to_string();
    // The server starts in the background; `/mcp` says how it is, until it is ready.
    let deadline = std::time::Instant::now() + editor::LIMIT;
    loop {
        editor.prompt(&session, "/mcp").await;
        let said: String = editor.drain().iter().filter_map(chunk_text).collect();
        if said.contains("editor-tools: ready") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "never ready: {said}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    editor.prompt(&session, "what can you use?").await;
    let offered = &fake.requests()[0].raw_body;
    assert!(offered.contains("mcp__editor-tools__echo"), "{offered}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_mcp_server_is_a_notice_when_the_editor_shows_them() {
    use agent_client_protocol::v1::schema::{
        ClientCapabilities, ClientSessionCapabilities, NoticeCapabilities, NoticeSeverity,
    };
    let (env, fake) = setup(vec![]);
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    let caps = ClientCapabilities::new()
        .session(ClientSessionCapabilities::new().notices(NoticeCapabilities::new()));
    editor.initialize_with(caps).await;
    let crashing = McpServerStdio::new("broken", tunacode_testkit::fake_mcp_binary())
        .args(vec!["--crash".into()]);
    editor
        .request(
            NewSessionRequest::new(env.workspace()).mcp_servers(vec![McpServer::Stdio(crashing)]),
        )
        .await
        .unwrap();
    let notice = editor
        .wait_for(|u| matches!(u, SessionUpdate::Notice(n) if n.title.contains("broken")))
        .await;
    let SessionUpdate::Notice(notice) = notice else {
        unreachable!()
    };
    assert_eq!(notice.severity, NoticeSeverity::Warning);
    assert!(notice.title.contains("`broken` failed"), "{}", notice.title);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_needs_an_absolute_directory_and_a_usable_model() {
    let (env, fake) = setup(vec![]);
    let editor = Editor::connect(&env, flags(&fake)).await;
    editor.initialize(false).await;
    let relative = editor
        .request(NewSessionRequest::new("relative/dir"))
        .await
        .unwrap_err();
    assert_eq!(i32::from(relative.code), -32602, "{relative:?}");

    let mut no_model = flags(&fake);
    no_model.model = None;
    let editor = Editor::connect(&env, no_model).await;
    editor.initialize(false).await;
    let error = editor
        .request(NewSessionRequest::new(env.workspace()))
        .await
        .unwrap_err();
    assert!(
        error.message.contains("no model chosen"),
        "says what to do: {error:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_command_s_output_reaches_the_editor_before_it_ends() {
    // Prints `out-one`, waits for a file the test makes once it has seen it, prints `out-two`.
    let command = json!({"command":
        "printf 'out-%s\\n' one; while [ ! -e go ]; do sleep 0.02; done; printf 'out-%s\\n' two"})
    .to_string();
    let (env, fake) = setup(vec![
        Turn::tool_calls(&[("w1", "bash", &command)]),
        Turn::text("all done"),
    ]);
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    editor.set_mode(&session, "yolo").await;
    let prompt = {
        let (cx, session) = (editor.cx.clone(), session.clone());
        tokio::spawn(async move {
            let text = ContentBlock::Text(TextContent::new("wait"));
            cx.send_request(PromptRequest::new(session, vec![text]))
                .block_task()
                .await
        })
    };
    let live = |u: &SessionUpdate| {
        matches!(u, SessionUpdate::ToolCallUpdate(t)
            if t.tool_call_id.to_string() == "w1"
                && t.fields.status.is_none()
                && serde_json::to_string(&t.fields.content).unwrap().contains("out-one"))
    };
    editor.wait_for(live).await;
    assert!(!prompt.is_finished(), "the command still runs");
    std::fs::write(env.workspace().join("go"), "").unwrap();
    let response = tokio::time::timeout(editor::LIMIT, prompt)
        .await
        .expect("the turn ends")
        .unwrap()
        .unwrap();
    assert_eq!(response.stop_reason, StopReason::EndTurn);
}
