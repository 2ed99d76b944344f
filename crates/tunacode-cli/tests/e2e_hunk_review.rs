//! End-to-end: an edit reviewed hunk by hunk over stream-json. Accepting 2 of 3 hunks writes exactly
//! those, and the model's next request names the rejected one and the user's note; a hunk index the
//! question does not offer is an error and the question stays open.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{FakeProvider, TestEnv, Turn, wait_with_timeout};

const WAIT: Duration = Duration::from_secs(30);

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
    let (mut child, mut out) = spawn_stream(&env, &fake, "openai:test-model", &[]);
    let mut stdin = child.stdin.take().unwrap();
    send_line(
        &mut stdin,
        json!({"type": "user_message", "text": "rename three lines"}),
    );
    let ask = next_of(&mut out, "approval_requested");
    assert_eq!(ask["hunks"], 3, "{ask}");
    // An index the question does not offer is refused; the question stays open.
    send_line(
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
    send_line(
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
