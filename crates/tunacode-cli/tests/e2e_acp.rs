//! `tunacode acp` as an editor runs it: the real binary on stdin/stdout. stdout carries JSON-RPC only,
//! a malformed line gets an error and the connection lives on, logs go to the log file, and the
//! process exits when stdin closes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

use common::{RUN_LIMIT, bin};
use serde_json::{Value, json};
use tunacode_testkit::{FakeProvider, LineReader, TestEnv, Turn, wait_with_timeout};

const WAIT: Duration = Duration::from_secs(20);

fn send(stdin: &mut std::process::ChildStdin, message: &Value) {
    writeln!(stdin, "{message}").unwrap();
    stdin.flush().unwrap();
}

#[test]
fn a_malformed_line_gets_an_error_and_the_connection_lives_until_stdin_closes() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("hello from the model")]);
    let mut child = env
        .command(&bin())
        .args(["acp", "--model", "openai:test-model", "--base-url"])
        .arg(fake.base_url())
        .env("TUNACODE_LOG", "debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = LineReader::new(child.stdout.take().unwrap());

    writeln!(stdin, "this is not json").unwrap();
    let error = out
        .wait_for(WAIT, |l| l.contains("\"error\""))
        .expect("a parse error");
    let error: Value = serde_json::from_str(&error).unwrap();
    assert_eq!(error["error"]["code"], -32700, "{error}");

    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {}}}),
    );
    let init = out.wait_for(WAIT, |l| l.contains("\"id\":2")).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&init).unwrap()["result"]["protocolVersion"],
        1
    );

    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "no/such_method", "params": {}}),
    );
    let unknown = out.wait_for(WAIT, |l| l.contains("\"id\":1")).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&unknown).unwrap()["error"]["code"],
        -32601
    );

    let ws = env.workspace();
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "session/new",
        "params": {"cwd": ws, "mcpServers": []}}),
    );
    let opened: Value =
        serde_json::from_str(&out.wait_for(WAIT, |l| l.contains("\"id\":3")).unwrap()).unwrap();
    let session = opened["result"]["sessionId"].as_str().unwrap().to_string();
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 4, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}}),
    );
    let done = out.wait_for(WAIT, |l| l.contains("\"id\":4")).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&done).unwrap()["result"]["stopReason"],
        "end_turn"
    );

    drop(stdin);
    let status = wait_with_timeout(&mut child, RUN_LIMIT).expect("exits when stdin closes");
    assert!(status.success(), "{status:?}");
    let lines = out.read_to_end(Duration::from_secs(5)).to_vec();
    for line in &lines {
        let message: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("stdout carries JSON-RPC only ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
    }
    let said: String = lines
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|m| {
            m["params"]["update"]["content"]["text"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    assert_eq!(said, "hello from the model");
    let log = std::fs::read_to_string(
        env.workspace()
            .parent()
            .unwrap()
            .join("state/tunacode/tunacode.log"),
    )
    .unwrap_or_default();
    assert!(!log.is_empty(), "debug logs go to the log file");
}

#[test]
fn a_client_asking_for_a_newer_protocol_gets_version_1() {
    let env = TestEnv::new().unwrap();
    let mut child = env
        .command(&bin())
        .args([
            "acp",
            "--model",
            "openai:test-model",
            "--base-url",
            "http://127.0.0.1:9/v1",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = LineReader::new(child.stdout.take().unwrap());
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": 2, "clientCapabilities": {}}}),
    );
    let init: Value =
        serde_json::from_str(&out.wait_for(WAIT, |l| l.contains("\"id\":1")).unwrap()).unwrap();
    assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
    assert_eq!(init["result"]["agentInfo"]["name"], "tunacode");
    assert_eq!(init["result"]["agentCapabilities"]["loadSession"], true);
    drop(stdin);
    assert!(wait_with_timeout(&mut child, RUN_LIMIT).unwrap().success());
}

/// Starts `tunacode acp` against `fake` with piped stdio.
fn start_acp(
    env: &TestEnv,
    fake: &FakeProvider,
) -> (std::process::Child, std::process::ChildStdin, LineReader) {
    let mut child = env
        .command(&bin())
        .args(["acp", "--model", "openai:test-model", "--base-url"])
        .arg(fake.base_url())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let out = LineReader::new(child.stdout.take().unwrap());
    (child, stdin, out)
}

/// `initialize` then `session/new` (or `session/load` of `load`); the session id.
fn open_session(
    stdin: &mut std::process::ChildStdin,
    out: &mut LineReader,
    cwd: &std::path::Path,
    load: Option<&str>,
) -> String {
    send(
        stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {}}}),
    );
    out.wait_for(WAIT, |l| l.contains("\"id\":1")).unwrap();
    let (method, params) = match load {
        Some(id) => (
            "session/load",
            json!({"sessionId": id, "cwd": cwd, "mcpServers": []}),
        ),
        None => ("session/new", json!({"cwd": cwd, "mcpServers": []})),
    };
    send(
        stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": params}),
    );
    let opened: Value =
        serde_json::from_str(&out.wait_for(WAIT, |l| l.contains("\"id\":2")).unwrap()).unwrap();
    assert!(opened.get("result").is_some(), "{opened}");
    opened["result"]["sessionId"]
        .as_str()
        .map_or_else(|| load.unwrap_or_default().to_string(), str::to_string)
}

#[test]
fn a_session_started_with_run_loads_in_the_editor() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("answer from run")]);
    let run = env
        .command(&bin())
        .args(["run", "--model", "openai:test-model", "--base-url"])
        .arg(fake.base_url())
        .arg("question from the terminal")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let saved = env.only_session();
    let id = saved["session_id"].as_str().unwrap().to_string();

    let (mut child, mut stdin, mut out) = start_acp(&env, &fake);
    open_session(&mut stdin, &mut out, &env.workspace(), Some(&id));
    drop(stdin);
    assert!(wait_with_timeout(&mut child, RUN_LIMIT).unwrap().success());
    let lines = out.read_to_end(Duration::from_secs(5)).to_vec();
    let texts: Vec<String> = lines
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|m| {
            m["params"]["update"]["content"]["text"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    assert_eq!(texts, ["question from the terminal", "answer from run"]);
}

#[test]
fn closing_stdin_during_a_prompt_saves_the_partial_answer() {
    let env = TestEnv::new().unwrap();
    let slow = Turn::Reply(tunacode_testkit::Reply {
        text: Some("partial ".repeat(500)),
        chunk_chars: 8,
        delay_ms: 20,
        ..tunacode_testkit::Reply::default()
    });
    let fake = FakeProvider::start(vec![slow]);
    let (mut child, mut stdin, mut out) = start_acp(&env, &fake);
    let session = open_session(&mut stdin, &mut out, &env.workspace(), None);
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": "talk"}]}}),
    );
    out.wait_for(WAIT, |l| l.contains("agent_message_chunk"))
        .expect("the answer streams");
    drop(stdin);
    let status = wait_with_timeout(&mut child, RUN_LIMIT).expect("exits when stdin closes");
    assert!(status.success(), "{status:?}");
    let saved = env.only_session().to_string();
    assert!(saved.contains("partial"), "the streamed text is kept");
    assert!(saved.contains("[INTERRUPTED]"), "marked as interrupted");
}

#[test]
fn a_client_that_reviews_hunks_accepts_some_of_an_edit_and_the_model_hears_of_the_rest() {
    let env = TestEnv::new().unwrap();
    let old: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    std::fs::write(env.workspace().join("notes.txt"), &old).unwrap();
    let patch = "*** Begin Patch\n*** Update File: notes.txt\n@@\n line 1\n-line 2\n+line TWO\n line 3\n@@\n line 19\n-line 20\n+line TWENTY\n line 21\n@@\n line 37\n-line 38\n+line THIRTY-EIGHT\n line 39\n*** End Patch\n";
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("p1", "apply_patch", &json!({ "input": patch }).to_string())]),
        Turn::text("Noted."),
    ]);
    let (mut child, mut stdin, mut out) = start_acp(&env, &fake);
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": 1,
                   "clientCapabilities": {"_meta": {"tunacode/hunkReview": true}}}}),
    );
    out.wait_for(WAIT, |l| l.contains("\"id\":1")).unwrap();
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
        "params": {"cwd": env.workspace(), "mcpServers": []}}),
    );
    let opened: Value =
        serde_json::from_str(&out.wait_for(WAIT, |l| l.contains("\"id\":2")).unwrap()).unwrap();
    let session = opened["result"]["sessionId"].as_str().unwrap().to_string();
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": "rename"}]}}),
    );
    let asked: Value = serde_json::from_str(
        &out.wait_for(WAIT, |l| l.contains("session/request_permission"))
            .unwrap(),
    )
    .unwrap();
    let options: Vec<&str> = asked["params"]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["optionId"].as_str().unwrap())
        .collect();
    assert!(options.contains(&"allow_hunks"), "{options:?}");
    let hunks = asked["params"]["_meta"]["tunacode/hunks"]
        .as_array()
        .unwrap();
    assert_eq!(hunks.len(), 3, "{asked}");
    assert_eq!(hunks[1]["file"], "notes.txt");
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"outcome": {
            "outcome": "selected", "optionId": "allow_hunks",
            "_meta": {"tunacode/hunks": [0, 2], "tunacode/note": "line 20 stays"}}}}),
    );
    out.wait_for(WAIT, |l| l.contains("\"id\":3") && l.contains("stopReason"))
        .expect("the prompt ends");
    drop(stdin);
    assert!(wait_with_timeout(&mut child, RUN_LIMIT).unwrap().success());
    let now = std::fs::read_to_string(env.workspace().join("notes.txt")).unwrap();
    assert_eq!(
        now,
        old.replace("line 2\n", "line TWO\n")
            .replace("line 38\n", "line THIRTY-EIGHT\n")
    );
    let next = fake.requests()[1].raw_body.clone();
    assert!(
        next.contains("+line TWENTY") && next.contains("line 20 stays"),
        "{next}"
    );
}
