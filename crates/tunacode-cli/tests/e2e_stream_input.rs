//! End-to-end: a script drives a whole multi-turn session through `--input-format stream-json`:
//! approvals answered by id (allow, deny with a note, allow for the session by command prefix), an
//! interrupt, and a request after it that carries the history.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::process::{Child, ChildStdin, Stdio};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{FakeProvider, LineReader, Reply, TestEnv, Turn, wait_with_timeout};

const WAIT: Duration = Duration::from_secs(30);

fn send(stdin: &mut ChildStdin, line: Value) {
    send_line(stdin, line);
}

/// `tunacode run` reading operations from a piped stdin.
fn spawn_streaming(env: &TestEnv, fake: &FakeProvider) -> Child {
    env.command(&bin())
        .args(["run", "--model", "openai:test-model", "--base-url"])
        .arg(fake.base_url())
        .args(["--input-format", "stream-json", "--output", "stream-json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn script() -> Vec<Turn> {
    vec![
        // Request 1: one write allowed, one denied with a note.
        Turn::tool_calls(&[(
            "w1",
            "write_file",
            r#"{"file_path": "a.txt", "content": "A\n"}"#,
        )]),
        Turn::tool_calls(&[(
            "w2",
            "write_file",
            r#"{"file_path": "b.txt", "content": "B\n"}"#,
        )]),
        Turn::text("done first"),
        // Request 2: `git init` allowed for the session; the identical command and another `git init`
        // run without asking, a different command asks again and is denied.
        Turn::tool_calls(&[("g1", "bash", r#"{"command": "git init -q r1"}"#)]),
        Turn::tool_calls(&[("g2", "bash", r#"{"command": "git init -q r1"}"#)]),
        Turn::tool_calls(&[("g3", "bash", r#"{"command": "git init -q r2"}"#)]),
        Turn::tool_calls(&[("t1", "bash", r#"{"command": "touch t.txt"}"#)]),
        Turn::text("done second"),
        // Request 3: a slow answer, interrupted.
        Turn::Reply(Reply {
            text: Some("This answer streams slowly and will be cut off. ".repeat(20)),
            chunk_chars: 8,
            delay_ms: 40,
            ..Reply::default()
        }),
        // Request 4: carries everything before it.
        Turn::text("all good"),
    ]
}

#[test]
fn a_script_drives_a_multi_turn_session_with_approvals_and_an_interrupt() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(script());
    let mut child = spawn_streaming(&env, &fake);
    let mut stdin = child.stdin.take().unwrap();
    let mut out = LineReader::new(child.stdout.take().unwrap());

    let opened = next_of(&mut out, "session_opened");
    let session_id = opened["session_id"].as_str().unwrap().to_string();
    send(&mut stdin, json!({"type": "user_message", "text": "first"}));
    let ask = next_of(&mut out, "approval_requested");
    assert_eq!(
        (ask["tool_name"].as_str(), ask["tool_call_id"].as_str()),
        (Some("write_file"), Some("w1"))
    );
    assert!(ask["preview"].as_str().unwrap().contains("+A"), "{ask}");
    assert!(!ask["reason"].as_str().unwrap().is_empty());
    send(
        &mut stdin,
        json!({"type": "approval", "request_id": ask["request_id"], "decision": "allow"}),
    );
    let ask = next_of(&mut out, "approval_requested");
    assert_eq!(ask["tool_call_id"], "w2");
    send(
        &mut stdin,
        json!({"type": "approval", "request_id": ask["request_id"], "decision": "deny",
               "note": "not b, write c.txt instead"}),
    );
    let first = next_of(&mut out, "result");
    assert_eq!(
        (first["status"].as_str(), first["exit_code"].as_i64()),
        (Some("answered"), Some(0))
    );
    assert_eq!(first["session_id"], session_id.as_str());

    // Claude Code's form of a user message works too.
    send(
        &mut stdin,
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "second"}]}}),
    );
    let ask = next_of(&mut out, "approval_requested");
    assert_eq!(ask["tool_call_id"], "g1");
    assert_eq!(ask["session_scope"], "`git init …` commands");
    send(
        &mut stdin,
        json!({"type": "approval", "request_id": ask["request_id"], "decision": "allow_session"}),
    );
    let ask = next_of(&mut out, "approval_requested");
    assert_eq!(
        ask["tool_call_id"], "t1",
        "the git inits must not ask again"
    );
    send(
        &mut stdin,
        json!({"type": "approval", "request_id": ask["request_id"], "decision": "deny"}),
    );
    let second = next_of(&mut out, "result");
    assert_eq!(second["status"], "answered");
    let finished: Vec<(String, String)> = out
        .seen
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tool_call_finished")
        .map(|e| {
            (
                e["tool_call_id"].as_str().unwrap().to_string(),
                e["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = [
        ("w1", "completed"),
        ("w2", "failed"),
        ("g1", "completed"),
        ("g2", "completed"),
        ("g3", "completed"),
        ("t1", "failed"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(finished, expected);
    let ws = env.workspace();
    assert!(ws.join("a.txt").exists() && !ws.join("b.txt").exists());
    assert!(ws.join("r1/.git").is_dir() && ws.join("r2/.git").is_dir());
    assert!(!ws.join("t.txt").exists());

    send(&mut stdin, json!({"type": "user_message", "text": "third"}));
    next_of(&mut out, "text_delta");
    send(&mut stdin, json!({"type": "interrupt"}));
    let third = next_of(&mut out, "result");
    assert_eq!(
        (third["status"].as_str(), third["exit_code"].as_i64()),
        (Some("aborted"), Some(130))
    );

    send(
        &mut stdin,
        json!({"type": "user_message", "text": "fourth"}),
    );
    let fourth = next_of(&mut out, "result");
    assert_eq!(fourth["status"], "answered");
    assert_eq!(fourth["response"], "all good");
    drop(stdin);
    let status = wait_with_timeout(&mut child, WAIT).expect("exits when stdin closes");
    assert_eq!(status.code(), Some(0), "the last request completed");
    out.read_to_end(Duration::from_secs(5));
    for line in &out.seen {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["schema_version"], 6, "{line}");
    }

    let requests = fake.requests();
    assert_eq!(requests.len(), 10);
    // The model was told the user's note for the denied write.
    let after_deny = requests[2].body.to_string();
    assert!(
        after_deny.contains("not b, write c.txt instead"),
        "{after_deny}"
    );
    // The second request carries the first one's history.
    let second_req = requests[3].body.to_string();
    assert!(second_req.contains("done first") && second_req.contains("second"));
    // The last one carries the interrupted answer and everything before it, every call paired.
    let last = &requests[9].body;
    let text = last.to_string();
    assert!(
        text.contains("[INTERRUPTED]") && text.contains("done second"),
        "{text}"
    );
    for r in &requests {
        assert_tool_pairing(&r.body);
    }
}

#[test]
fn unreadable_input_lines_are_reported_and_the_session_goes_on() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("fine")]);
    let mut child = spawn_streaming(&env, &fake);
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "this is not json").unwrap();
    send(
        &mut stdin,
        json!({"type": "approval", "request_id": "q-none", "decision": "allow"}),
    );
    send(&mut stdin, json!({"type": "user_message", "text": "hi"}));
    drop(stdin);
    let run = finish(child, None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let errors = run.of_type("error");
    assert_eq!(errors.len(), 2, "{}", run.stdout);
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("stdin line 1:")
    );
    assert!(errors[1]["message"].as_str().unwrap().contains("q-none"));
    assert_eq!(run.result()["response"], "fine");
}

#[test]
fn stream_json_input_needs_stream_json_output() {
    let env = TestEnv::new().unwrap();
    let out = env
        .command(&bin())
        .args([
            "run",
            "--model",
            "openai:m",
            "--base-url",
            "http://127.0.0.1:9/v1",
        ])
        .args(["--input-format", "stream-json"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--output stream-json"));
}
