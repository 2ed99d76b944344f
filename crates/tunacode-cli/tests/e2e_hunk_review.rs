//! End-to-end: an edit reviewed hunk by hunk over stream-json. Accepting 2 of 3 hunks writes exactly
//! those, and the model's next request names the rejected one and the user's note; a hunk index the
//! question does not offer is an error and the question stays open.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::process::{ChildStdin, Stdio};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{FakeProvider, LineReader, TestEnv, Turn, wait_with_timeout};

const WAIT: Duration = Duration::from_secs(30);

fn send(stdin: &mut ChildStdin, line: Value) {
    writeln!(stdin, "{line}").unwrap();
    stdin.flush().unwrap();
}

fn next_of(reader: &mut LineReader, ty: &str) -> Value {
    let pattern = format!("\"type\":\"{ty}\"");
    let line = reader
        .wait_for(WAIT, |l| l.contains(&pattern))
        .unwrap_or_else(|| panic!("no {ty} line; seen: {:#?}", reader.seen));
    serde_json::from_str(&line).unwrap()
}

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[test]
fn accepting_two_of_three_hunks_writes_exactly_those_and_tells_the_model_the_third() {
    let env = TestEnv::new().unwrap();
    let old = numbered(40);
    std::fs::write(env.workspace().join("notes.txt"), &old).unwrap();
    let patch = "*** Begin Patch\n*** Update File: notes.txt\n@@\n line 1\n-line 2\n+line TWO\n line 3\n@@\n line 19\n-line 20\n+line TWENTY\n line 21\n@@\n line 37\n-line 38\n+line THIRTY-EIGHT\n line 39\n*** End Patch\n";
    let args = json!({ "input": patch }).to_string();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("p1", "apply_patch", &args)]),
        Turn::text("Noted."),
    ]);
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
    send(
        &mut stdin,
        json!({"type": "user_message", "text": "rename three lines"}),
    );
    let ask = next_of(&mut out, "approval_requested");
    assert_eq!(ask["hunks"], 3, "{ask}");
    // An index the question does not offer is refused; the question stays open.
    send(
        &mut stdin,
        json!({"type": "approval", "request_id": ask["request_id"], "decision": "allow", "hunks": [0, 3]}),
    );
    let refused = next_of(&mut out, "error");
    assert!(
        refused
            .to_string()
            .contains(ask["request_id"].as_str().unwrap()),
        "{refused}"
    );
    send(
        &mut stdin,
        json!({"type": "approval", "request_id": ask["request_id"], "decision": "allow",
               "hunks": [0, 2], "note": "line 20 stays: the parser counts on it"}),
    );
    let result = next_of(&mut out, "result");
    assert_eq!(result["status"], "answered", "{result}");
    drop(stdin);
    wait_with_timeout(&mut child, WAIT).unwrap();

    let now = std::fs::read_to_string(env.workspace().join("notes.txt")).unwrap();
    let expected = old
        .replace("line 2\n", "line TWO\n")
        .replace("line 38\n", "line THIRTY-EIGHT\n");
    assert_eq!(now, expected);
    let finished = out
        .seen
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "tool_call_finished")
        .unwrap();
    assert_eq!(finished["status"], "completed");
    let next = fake.requests()[1].raw_body.clone();
    assert!(next.contains("Rejected and NOT written"), "{next}");
    assert!(
        next.contains("+line TWENTY"),
        "the rejected hunk is quoted: {next}"
    );
    assert!(
        next.contains("line 20 stays: the parser counts on it"),
        "{next}"
    );
    assert!(next.contains("Written as you wrote them: 1, 3."), "{next}");
}
