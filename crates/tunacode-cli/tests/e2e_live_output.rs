//! End-to-end: a running command's output reaches the front ends while it runs — stream-json emits
//! `tool_output` lines before the call's `tool_call_finished`, and the UI (tmux) shows the first line
//! in the call's cell while it still runs. The command waits for a file the test makes only once it
//! has seen the first line, so nothing depends on timing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{FakeProvider, LineReader, TestEnv, Turn};

const WAIT: Duration = Duration::from_secs(30);
/// Prints `out-one`, waits for `go`, prints `out-two` (the words are not in the command's own text,
/// which the UI shows too).
const WAITING: &str =
    "printf 'out-%s\\n' one; while [ ! -e go ]; do sleep 0.02; done; printf 'out-%s\\n' two";

fn waiting_call() -> Turn {
    let args = json!({"command": WAITING}).to_string();
    Turn::tool_calls(&[("live", "bash", args.as_str())])
}

#[test]
fn stream_json_carries_a_command_s_output_before_it_ends() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![waiting_call(), Turn::text("done")]);
    let mut child = spawn(&env, &fake, &["--yes", "wait for it"], &[]);
    let mut reader = LineReader::new(child.stdout.take().unwrap());
    let first = reader
        .wait_for(WAIT, |l| {
            l.contains("\"tool_output\"") && l.contains("out-one")
        })
        .expect("the first line arrives live");
    let first: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(first["tool_call_id"], "live");
    assert_eq!(first["stream"], "stdout");
    assert_eq!(first["schema_version"], 6);
    assert!(
        !reader
            .seen
            .iter()
            .any(|l| l.contains("\"tool_call_finished\"")),
        "the call has not ended yet"
    );
    std::fs::write(env.workspace().join("go"), "").unwrap();
    let run = finish(child, Some(reader));
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);
    let lines: Vec<&Value> = run.events.iter().collect();
    let position = |pred: &dyn Fn(&Value) -> bool| lines.iter().position(|v| pred(v)).unwrap();
    let second = position(&|v| v["type"] == "tool_output" && v["text"] == "out-two\n");
    let finished = position(&|v| v["type"] == "tool_call_finished");
    assert!(second < finished, "output comes before the call's end");
}

#[test]
fn the_ui_shows_a_running_command_s_output_in_its_cell() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![waiting_call(), Turn::text("All done.")]);
    write_local_config(&env, &fake, json!({}));
    let tmux = tmux_start(&env, "", 100, 30);
    tmux.wait_for_text("local:test-model", WAIT).unwrap();
    tmux.type_text("/yolo").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("YOLO on", WAIT).unwrap();
    tmux.type_text("wait for it").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    let screen = tmux
        .wait_for("the first line in the running cell", WAIT, |s| {
            s.contains("│ out-one")
        })
        .unwrap();
    assert!(!screen.contains("out-two"), "{screen}");
    assert!(!screen.contains("All done."), "{screen}");
    std::fs::write(env.workspace().join("go"), "").unwrap();
    tmux.wait_for_text("All done.", WAIT).unwrap();
    tmux.keys(&["C-c", "C-c"]).unwrap();
    assert_eq!(tmux.wait_exit(WAIT).unwrap(), 0);
}

#[test]
fn a_bang_command_shows_its_output_live_and_esc_stops_it_at_once() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("unused")]);
    write_local_config(&env, &fake, json!({}));
    let tmux = tmux_start(&env, "", 100, 30);
    tmux.wait_for_text("local:test-model", WAIT).unwrap();
    tmux.type_text(&format!("!{WAITING}")).unwrap();
    tmux.keys(&["Enter"]).unwrap();
    let screen = tmux
        .wait_for("the first line while it runs", WAIT, |s| {
            s.contains("out-one") && s.contains("Esc stops it")
        })
        .unwrap();
    assert!(!screen.contains("out-two"), "{screen}");
    std::fs::write(env.workspace().join("go"), "").unwrap();
    tmux.wait_for("the command's end", WAIT, |s| {
        s.contains("out-two") && !s.contains("Esc stops it")
    })
    .unwrap();

    // Far longer than any wait here: only Esc can end it before the test gives up.
    let marker = format!("3000.{}", std::process::id());
    tmux.type_text(&format!("!sleep {marker}")).unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("Esc stops it", WAIT).unwrap();
    assert!(wait_running(&marker, true, WAIT), "the command runs");
    tmux.keys(&["Escape"]).unwrap();
    let screen = tmux
        .wait_for("the stopped command", WAIT, |s| !s.contains("Esc stops it"))
        .unwrap();
    assert!(screen.contains("cancelled by user"), "{screen}");
    assert!(wait_running(&marker, false, WAIT), "the sleep was killed");
    tmux.keys(&["C-c", "C-c"]).unwrap();
    assert_eq!(tmux.wait_exit(WAIT).unwrap(), 0);
}
