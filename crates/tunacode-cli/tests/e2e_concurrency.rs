//! End-to-end: read-only calls of one response overlap; writes run one at a time, in order.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::time::Duration;

use common::*;
use serde_json::Value;
use tunacode_testkit::{FakeProvider, LineReader, TestEnv, Turn};

#[test]
fn read_only_calls_overlap_and_writes_do_not() {
    let env = TestEnv::new().unwrap();
    // Two named pipes: reading one blocks until the test writes it. The test writes only after both
    // reads have started, so the run can only finish if the two reads were in flight together.
    let pipes = ["pipe_a", "pipe_b"].map(|n| env.workspace().join(n));
    for p in &pipes {
        nix::unistd::mkfifo(p, nix::sys::stat::Mode::S_IRWXU).unwrap();
    }
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[
            ("r1", "read_file", r#"{"file_path": "pipe_a"}"#),
            ("r2", "read_file", r#"{"file_path": "pipe_b"}"#),
        ]),
        Turn::tool_calls(&[
            (
                "w1",
                "write_file",
                r#"{"file_path": "one.txt", "content": "1"}"#,
            ),
            (
                "w2",
                "write_file",
                r#"{"file_path": "two.txt", "content": "2"}"#,
            ),
        ]),
        Turn::text("TUNACODE DONE: both written"),
    ]);
    let mut child = spawn(
        &env,
        &fake,
        &["--yes", "read both pipes"],
        &[("TUNACODE_MAX_PARALLEL", "4")],
    );
    let mut reader = LineReader::new(child.stdout.take().unwrap());
    for id in ["r1", "r2"] {
        let started = reader.wait_for(Duration::from_secs(20), |l| {
            l.contains("\"tool_call_started\"") && l.contains(&format!("\"{id}\""))
        });
        if started.is_none() {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{id} did not start while the other read was blocked: {:?}",
                reader.seen
            );
        }
    }
    assert!(
        !reader
            .seen
            .iter()
            .any(|l| l.contains("\"tool_call_finished\"")),
        "a read finished before both started"
    );
    for (p, text) in pipes.iter().zip(["from a\n", "from b\n"]) {
        std::fs::OpenOptions::new()
            .write(true)
            .open(p)
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    let run = finish(child, Some(reader));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let order: Vec<String> = run
        .events
        .iter()
        .filter(|e| e["type"] == "tool_call_started" || e["type"] == "tool_call_finished")
        .map(|e| {
            format!(
                "{}:{}",
                e["type"].as_str().unwrap().trim_start_matches("tool_call_"),
                e["tool_call_id"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        &order[4..],
        ["started:w1", "finished:w1", "started:w2", "finished:w2"]
    );
    let answers: Vec<Value> = messages(&fake.requests()[1].body)
        .into_iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(
        answers[0]["tool_call_id"], "r1",
        "results stay in call order"
    );
    assert!(answers[0]["content"].as_str().unwrap().contains("from a"));
    assert!(answers[1]["content"].as_str().unwrap().contains("from b"));
    assert!(env.workspace().join("one.txt").exists() && env.workspace().join("two.txt").exists());
}
