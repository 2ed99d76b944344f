//! End-to-end: durability. A scripted 200-call run is killed with SIGKILL at random moments (30
//! times, seeded); each time `--continue` loads the session and the next request sends the model every
//! tool result that finished before the kill, with every call paired.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashSet;
use std::time::Duration;

use common::*;
use serde_json::Value;
use tunacode_testkit::{FakeProvider, LineReader, TestEnv, Turn, wait_with_timeout};

/// 100 turns of two parallel reads each, then an answer.
fn script() -> Vec<Turn> {
    let mut turns: Vec<Turn> = (0..100)
        .map(|i| {
            let read = format!(r#"{{"file_path": "f{}.txt"}}"#, i % 5);
            Turn::tool_calls(&[
                (&format!("r{i}"), "read_file", &read),
                (&format!("l{i}"), "list_dir", r#"{"directory": "."}"#),
            ])
        })
        .collect();
    turns.push(Turn::text("all read"));
    turns
}

/// The ids of the tool results a request sends back.
fn answered_ids(body: &Value) -> HashSet<String> {
    messages(body)
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["tool_call_id"].as_str().unwrap().to_string())
        .collect()
}

fn kill_once(seed: u64) {
    let env = TestEnv::new().unwrap();
    for i in 0..5 {
        std::fs::write(
            env.workspace().join(format!("f{i}.txt")),
            format!("file {i}\n"),
        )
        .unwrap();
    }
    let fake = FakeProvider::start(script());
    let mut child = spawn(
        &env,
        &fake,
        &["--yes", "--max-iterations", "400", "read them all"],
        &[],
    );
    let mut out = LineReader::new(child.stdout.take().unwrap());
    // A random moment: after 1 to 400 output lines (about 8 lines a turn).
    let stop_after = fastrand::Rng::with_seed(seed).usize(1..=400);
    for _ in 0..stop_after {
        if out.wait_for(Duration::from_secs(30), |_| true).is_none() {
            break;
        }
    }
    child.kill().unwrap();
    wait_with_timeout(&mut child, Duration::from_secs(10)).expect("killed");
    let finished: HashSet<String> = out
        .seen
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tool_call_finished")
        .map(|e| e["tool_call_id"].as_str().unwrap().to_string())
        .collect();

    let next = FakeProvider::start(vec![Turn::text("continuing")]);
    let run = run(&env, &next, &["--continue", "go on"]);
    assert_eq!(run.code, 0, "seed {seed}: {}\n{}", run.stdout, run.stderr);
    let requests = next.requests();
    assert_eq!(requests.len(), 1, "seed {seed}");
    let body = &requests[0].body;
    assert_tool_pairing(body);
    let sent = answered_ids(body);
    let missing: Vec<&String> = finished.difference(&sent).collect();
    assert!(
        missing.is_empty(),
        "seed {seed} (killed after {stop_after} lines): results that finished before the kill were \
         not sent: {missing:?}"
    );
    let text = body.to_string();
    assert!(
        text.contains("read them all") && text.contains("go on"),
        "seed {seed}"
    );
}

#[test]
fn killed_at_random_moments_the_session_keeps_every_finished_tool_result() {
    for seed in 0..30 {
        kill_once(seed);
    }
}
