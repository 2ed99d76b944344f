//! The public stream-json output of a whole scripted session (an MCP server, approvals allowed and
//! denied with a note, a compaction, an interrupt) compared line by line with a committed golden
//! file: any change to what scripts read fails here until the golden file, the schema version and the
//! changelog say so. Volatile values (ids, durations, temp paths, how much streamed before the
//! interrupt) are normalized first. `UPDATE_GOLDEN=1` rewrites the file; read the diff as a script
//! author would before committing it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{ChildStdin, Stdio};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{
    FakeProvider, LineReader, Reply, TestEnv, Turn, fake_mcp_binary, wait_with_timeout,
};

const WAIT: Duration = Duration::from_secs(30);
const GOLDEN: &str = "tests/golden/stream_session.jsonl";

fn send(stdin: &mut ChildStdin, line: Value) {
    writeln!(stdin, "{line}").unwrap();
    stdin.flush().unwrap();
}

/// Waits for the next line holding every one of `parts`; returns it parsed.
fn next_with(reader: &mut LineReader, parts: &[&str]) -> Value {
    let line = reader
        .wait_for(WAIT, |l| parts.iter().all(|p| l.contains(p)))
        .unwrap_or_else(|| panic!("no line with {parts:?}; seen: {:#?}", reader.seen));
    serde_json::from_str(&line).unwrap()
}

fn script() -> Vec<Turn> {
    vec![
        // Request 1: an MCP call, a write allowed, a write denied with a note, an answer.
        Turn::tool_calls(&[("m1", "mcp__echo__echo", r#"{"message": "hello"}"#)]),
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
        // The compaction's summary.
        Turn::text("The user asked for a.txt; it was written. b.txt was refused."),
        // Request 2: a slow answer, interrupted.
        Turn::Reply(Reply {
            text: Some("This answer streams slowly and will be cut off. ".repeat(20)),
            chunk_chars: 8,
            delay_ms: 40,
            ..Reply::default()
        }),
        // Request 3.
        Turn::text("all good"),
    ]
}

/// Runs the scripted session; returns every stdout line.
fn run_session(env: &TestEnv, fake: &FakeProvider) -> Vec<String> {
    let server = json!({"command": fake_mcp_binary(), "args": []});
    let config = json!({"mcpServers": {"echo": server}});
    std::fs::write(env.config_file(), config.to_string()).unwrap();
    let mut child = env
        .command(&bin())
        .args(["run", "--model", "openai:test-model", "--base-url"])
        .arg(fake.base_url())
        .args(["--input-format", "stream-json", "--output", "stream-json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = LineReader::new(child.stdout.take().unwrap());
    // The server is ready before anything else happens, so its lines come in one order.
    next_with(
        &mut out,
        &["\"type\":\"mcp_server\"", "\"state\":\"ready\""],
    );
    send(&mut stdin, json!({"type": "user_message", "text": "first"}));
    for decision in [json!("allow"), json!("allow"), json!("deny")] {
        let ask = next_with(&mut out, &["\"type\":\"approval_requested\""]);
        let mut answer =
            json!({"type": "approval", "request_id": ask["request_id"], "decision": decision});
        if decision == "deny" {
            answer["note"] = json!("not b, write c.txt instead");
        }
        send(&mut stdin, answer);
    }
    next_with(&mut out, &["\"type\":\"result\""]);
    send(&mut stdin, json!({"type": "compact"}));
    next_with(&mut out, &["\"type\":\"result\""]);
    send(
        &mut stdin,
        json!({"type": "user_message", "text": "second"}),
    );
    next_with(&mut out, &["\"type\":\"text_delta\""]);
    send(&mut stdin, json!({"type": "interrupt"}));
    next_with(&mut out, &["\"type\":\"result\""]);
    send(&mut stdin, json!({"type": "user_message", "text": "third"}));
    next_with(&mut out, &["\"type\":\"result\""]);
    drop(stdin);
    wait_with_timeout(&mut child, WAIT).expect("exits when stdin closes");
    out.read_to_end(Duration::from_secs(5)).to_vec()
}

/// The lines with volatile values replaced: ids, durations, temp paths; consecutive text deltas
/// (how many arrive before an interrupt varies) merged into one.
fn normalize(lines: &[String], home: &Path) -> Vec<String> {
    let home = home.display().to_string();
    let mut normalized: Vec<Value> = Vec::new();
    for line in lines {
        let mut value: Value = serde_json::from_str(&line.replace(&home, "<home>")).unwrap();
        blank_volatile(&mut value);
        let delta = value["type"] == "text_delta";
        match normalized.last_mut() {
            Some(last) if delta && last["type"] == "text_delta" => {
                let text = format!(
                    "{}{}",
                    last["text"].as_str().unwrap(),
                    value["text"].as_str().unwrap()
                );
                last["text"] = json!(text);
            }
            _ => normalized.push(value),
        }
    }
    for value in &mut normalized {
        cut_interrupted(value);
    }
    normalized.iter().map(Value::to_string).collect()
}

fn blank_volatile(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, field) in map.iter_mut() {
                match key.as_str() {
                    "session_id" | "request_id" | "duration_ms" | "elapsed_ms" => {
                        *field = json!("<volatile>")
                    }
                    _ => blank_volatile(field),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(blank_volatile),
        _ => {}
    }
}

/// The interrupted answer's text depends on when the interrupt landed: only its start is kept.
fn cut_interrupted(value: &mut Value) {
    const KEEP: usize = 8;
    for key in ["text", "partial_text", "response"] {
        if let Some(text) = value[key].as_str()
            && text.starts_with("This answer streams slowly")
        {
            value[key] = json!(format!("{}…", &text[..KEEP]));
        }
    }
}

#[test]
fn a_whole_sessions_stream_json_output_is_the_golden_one() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(script());
    let lines = run_session(&env, &fake);
    let home = env.workspace().parent().unwrap().to_path_buf();
    let got = normalize(&lines, &home).join("\n") + "\n";
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::write(&golden, &got).unwrap();
    }
    let want =
        std::fs::read_to_string(&golden).expect("the golden file (UPDATE_GOLDEN=1 writes it)");
    for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(g, w, "line {} differs", i + 1);
    }
    assert_eq!(got.lines().count(), want.lines().count(), "{got}");
}
