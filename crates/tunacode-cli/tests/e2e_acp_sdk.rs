//! `tunacode acp` driven by an editor built on the reference TypeScript library
//! (`@agentclientprotocol/sdk` from npm, installed by `scripts/setup-acp-client.sh`; the driver is
//! `scripts/acp-client/drive.mjs`): initialize, a new session, an edit allowed once then always (with
//! its diff), a cancel in the middle of a streamed answer, then the session loaded in a second process
//! with the same history; a sub-agent's `task` call updated while it works.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;
use std::process::Stdio;

use common::{RUN_LIMIT, bin};
use serde_json::{Value, json};
use tunacode_testkit::{FakeProvider, LineReader, Reply, TestEnv, Turn, wait_with_timeout};

/// The driver and the library (`$TUNACODE_ACP_CLIENT`, `$TUNACODE_ACP_SDK`, set by `scripts/test.sh`).
fn driver() -> (PathBuf, String) {
    match (
        std::env::var_os("TUNACODE_ACP_CLIENT"),
        std::env::var("TUNACODE_ACP_SDK"),
    ) {
        (Some(client), Ok(sdk)) => (PathBuf::from(client), sdk),
        _ => panic!(
            "the ACP reference client is not installed: run `eval \"$(scripts/setup-acp-client.sh)\"` \
             (scripts/test.sh does), which sets TUNACODE_ACP_CLIENT and TUNACODE_ACP_SDK"
        ),
    }
}

/// Runs the driver on `steps` against `tunacode acp` (the fake provider behind it); its events.
fn drive(env: &TestEnv, fake: &FakeProvider, steps: &Value) -> Vec<Value> {
    let (client, sdk) = driver();
    let script = env.workspace().parent().unwrap().join("script.json");
    std::fs::write(&script, steps.to_string()).unwrap();
    let mut child = env
        .command(std::path::Path::new("node"))
        .arg(client)
        .arg(&script)
        .arg(bin())
        .args(["acp", "--model", "openai:test-model", "--base-url"])
        .arg(fake.base_url())
        .env("TUNACODE_ACP_SDK", sdk)
        .stdout(Stdio::piped())
        .spawn()
        .expect("node runs the driver");
    let mut out = LineReader::new(child.stdout.take().unwrap());
    let status = wait_with_timeout(&mut child, RUN_LIMIT).expect("the driver finishes");
    let lines = out.read_to_end(std::time::Duration::from_secs(5)).to_vec();
    assert!(status.success(), "driver failed: {lines:?}");
    let events: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let trouble: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "error" || e["event"] == "fatal")
        .collect();
    assert!(trouble.is_empty(), "protocol trouble: {trouble:?}");
    events
}

fn edit(id: &str, from: &str, to: &str) -> Turn {
    let args = json!({"file_path": "a.txt", "target": from, "replacement": to});
    Turn::tool_calls(&[(id, "update_file", &args.to_string())])
}

fn updates<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["event"] == "update" && e["update"]["sessionUpdate"] == kind)
        .map(|e| &e["update"])
        .collect()
}

fn response(events: &[Value], step: usize) -> &Value {
    events
        .iter()
        .find(|e| e["event"] == "response" && e["step"] == step)
        .unwrap_or_else(|| panic!("no response to step {step}: {events:?}"))
}

#[test]
fn the_reference_client_edits_cancels_and_reloads_a_session() {
    let env = TestEnv::new().unwrap();
    let slow = Turn::Reply(Reply {
        text: Some("streaming ".repeat(300)),
        chunk_chars: 10,
        delay_ms: 20,
        ..Reply::default()
    });
    let fake = FakeProvider::start(vec![
        edit("c1", "one", "two"),
        Turn::text("edited once"),
        edit("c2", "two", "three"),
        Turn::text("edited twice"),
        edit("c3", "three", "four"),
        Turn::text("edited thrice"),
        slow,
    ]);
    std::fs::write(env.workspace().join("a.txt"), "one\n").unwrap();
    let cwd = env.workspace();
    let first = drive(
        &env,
        &fake,
        &json!([
            {"do": "initialize", "protocolVersion": 1},
            {"do": "new_session", "cwd": cwd},
            {"do": "prompt", "prompt": "edit a", "permissions": ["allow_once"]},
            {"do": "prompt", "prompt": "edit again", "permissions": ["allow_always"]},
            {"do": "prompt", "prompt": "edit a third time", "permissions": []},
            {"do": "prompt", "prompt": "talk to me",
             "cancelAfter": {"update": "agent_message_chunk", "count": 2}},
        ]),
    );
    assert_eq!(response(&first, 0)["result"]["protocolVersion"], 1);
    let session = response(&first, 1)["result"]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    for step in 2..=4 {
        assert_eq!(response(&first, step)["result"]["stopReason"], "end_turn");
    }
    let asked: Vec<&Value> = first
        .iter()
        .filter(|e| e["event"] == "permission")
        .collect();
    assert_eq!(asked.len(), 2, "asked once, then allowed always: {asked:?}");
    assert_eq!(asked[0]["chosen"], "allow_once");
    assert_eq!(asked[1]["chosen"], "allow_always");
    let diffs: Vec<Value> = updates(&first, "tool_call_update")
        .into_iter()
        .flat_map(|u| u["content"].as_array().cloned().unwrap_or_default())
        .filter(|c| c["type"] == "diff")
        .collect();
    assert_eq!(diffs.len(), 3, "one diff per edit");
    assert_eq!(diffs[0]["oldText"], "one\n");
    assert_eq!(diffs[0]["newText"], "two\n");
    assert!(first.iter().any(|e| e["event"] == "cancel_sent"));
    assert_eq!(response(&first, 5)["result"]["stopReason"], "cancelled");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("a.txt")).unwrap(),
        "four\n"
    );
    let exit = first.iter().find(|e| e["event"] == "exit").unwrap();
    assert_eq!(
        exit["code"], 0,
        "the agent exits cleanly when its stdin closes"
    );

    let second = drive(
        &env,
        &fake,
        &json!([
            {"do": "initialize", "protocolVersion": 1},
            {"do": "load_session", "sessionId": session, "cwd": cwd},
        ]),
    );
    assert!(response(&second, 1).get("result").is_some());
    let said_by_user: Vec<&str> = updates(&second, "user_message_chunk")
        .iter()
        .filter_map(|u| u["content"]["text"].as_str())
        .collect();
    assert_eq!(
        said_by_user,
        ["edit a", "edit again", "edit a third time", "talk to me"]
    );
    let answered: String = updates(&second, "agent_message_chunk")
        .iter()
        .filter_map(|u| u["content"]["text"].as_str())
        .collect();
    for text in [
        "edited once",
        "edited twice",
        "edited thrice",
        "[INTERRUPTED]",
    ] {
        assert!(
            answered.contains(text),
            "{text} is in the replayed history: {answered}"
        );
    }
    let calls = updates(&second, "tool_call");
    assert_eq!(calls.len(), 3);
    assert!(
        calls
            .iter()
            .all(|c| c["kind"] == "edit" && c["title"] == "Edit a.txt")
    );
}

#[test]
fn the_reference_client_lists_the_prompts_and_rewinds_through_a_command() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        edit("c1", "one", "two"),
        Turn::text("edited once"),
        edit("c2", "two", "three"),
        Turn::text("edited twice"),
    ]);
    std::fs::write(env.workspace().join("a.txt"), "one\n").unwrap();
    let cwd = env.workspace();
    let events = drive(
        &env,
        &fake,
        &json!([
            {"do": "initialize", "protocolVersion": 1},
            {"do": "new_session", "cwd": cwd},
            {"do": "prompt", "prompt": "edit a", "permissions": ["allow_always"]},
            {"do": "prompt", "prompt": "edit again", "permissions": []},
            {"do": "prompt", "prompt": "/rewind", "permissions": []},
            {"do": "prompt", "prompt": "/rewind 2", "permissions": []},
        ]),
    );
    for step in 2..=5 {
        assert_eq!(response(&events, step)["result"]["stopReason"], "end_turn");
    }
    let said: String = updates(&events, "agent_message_chunk")
        .iter()
        .filter_map(|u| u["content"]["text"].as_str())
        .collect();
    assert!(
        said.contains("1. edit a") && said.contains("2. edit again"),
        "{said}"
    );
    assert!(
        said.contains("Rewind: conversation and files back to before prompt 2"),
        "{said}"
    );
    assert!(said.contains("restored a.txt"), "{said}");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("a.txt")).unwrap(),
        "two\n"
    );
    assert_eq!(fake.requests().len(), 4, "commands never reach the model");
}

#[test]
fn the_reference_client_forks_a_session_and_the_original_stays_as_it_was() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        edit("c1", "one", "two"),
        Turn::text("edited once"),
        Turn::text("answered in the fork"),
    ]);
    std::fs::write(env.workspace().join("a.txt"), "one\n").unwrap();
    let cwd = env.workspace();
    let events = drive(
        &env,
        &fake,
        &json!([
            {"do": "initialize", "protocolVersion": 1},
            {"do": "new_session", "cwd": cwd},
            {"do": "prompt", "prompt": "edit a", "permissions": ["allow_always"]},
            {"do": "fork_session", "cwd": cwd},
            {"do": "prompt", "prompt": "go on in the fork", "permissions": []},
        ]),
    );
    let caps = &response(&events, 0)["result"]["agentCapabilities"]["sessionCapabilities"];
    assert!(caps["fork"].is_object(), "fork is offered: {caps}");
    let original = response(&events, 1)["result"]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let forked = response(&events, 3)["result"]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(forked, original);
    assert_eq!(response(&events, 4)["result"]["stopReason"], "end_turn");
    let last = &fake.requests()[2].body;
    assert!(
        last.to_string().contains("edit a"),
        "the fork has the history: {last}"
    );
    let files = env.session_files();
    let text = |id: &str| {
        let file = files
            .iter()
            .find(|f| f.to_string_lossy().contains(id))
            .unwrap();
        std::fs::read_to_string(file).unwrap()
    };
    assert!(text(&forked).contains("go on in the fork"));
    assert!(
        !text(&original).contains("go on in the fork"),
        "the original is unchanged"
    );
    let tree = std::fs::read_to_string(
        files
            .iter()
            .find(|f| f.to_string_lossy().contains(&forked))
            .unwrap()
            .with_extension("tree.json"),
    )
    .unwrap();
    assert!(
        tree.contains(&original),
        "the fork names its parent: {tree}"
    );
}

#[test]
fn the_reference_client_sees_a_sub_agent_s_task_call_update_as_it_works() {
    let env = TestEnv::new().unwrap();
    std::fs::write(env.workspace().join("a.txt"), "alpha\n").unwrap();
    let task = json!({"description": "read a", "prompt": "acp-task: what is in a.txt?", "subagent_type": "explore"});
    let options = tunacode_testkit::FakeOptions {
        routes: vec![common::subagent_route(
            "acp-task",
            vec![
                Turn::tool_calls(&[("a1", "read_file", r#"{"file_path": "a.txt"}"#)]),
                Turn::text("a.txt says alpha."),
            ],
        )],
        ..tunacode_testkit::FakeOptions::default()
    };
    let fake = FakeProvider::start_with(
        std::sync::Arc::new(tunacode_testkit::OpenAiChat),
        vec![
            Turn::tool_calls(&[("t1", "task", &task.to_string())]),
            Turn::text("The sub-agent read it."),
        ],
        options,
    );
    let cwd = env.workspace();
    let events = drive(
        &env,
        &fake,
        &json!([
            {"do": "initialize", "protocolVersion": 1},
            {"do": "new_session", "cwd": cwd},
            {"do": "prompt", "prompt": "ask a sub-agent", "permissions": []},
        ]),
    );
    assert_eq!(response(&events, 2)["result"]["stopReason"], "end_turn");
    let started = updates(&events, "tool_call")
        .into_iter()
        .find(|u| u["toolCallId"] == "t1")
        .expect("the task call is announced");
    assert_eq!(started["title"], "Sub-agent explore: read a");
    let texts: Vec<String> = updates(&events, "tool_call_update")
        .into_iter()
        .filter(|u| u["toolCallId"] == "t1")
        .flat_map(|u| u["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c["content"]["text"].as_str().map(str::to_string))
        .collect();
    assert!(
        texts.iter().any(|t| t.contains("• Read a.txt")),
        "its tool call shows while it runs: {texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.contains("a.txt says alpha.") && !t.contains("ended:")),
        "its text shows before the result: {texts:?}"
    );
    assert!(texts.last().unwrap().contains("ended: done"), "{texts:?}");
}
