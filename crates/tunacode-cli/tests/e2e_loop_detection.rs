//! End-to-end: loops caught and recovered from, with the real binary and scripted models. A model
//! that repeats a call is told once to change approach and, repeating again, the headless run ends
//! `loop_detected` with exit 6; the same error with varied arguments and the same text are caught
//! too; a 30-step refactor that runs the same check after each edit finishes untouched; a script
//! driving the run is asked, and "disable" lets the model go on unwatched; `settings.loop_detection`
//! turns it off.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{FakeProvider, Reply, ScriptedToolCall, TestEnv, Turn};

const NOTE: &str = "Loop detected:";

fn read_a(id: &str) -> Turn {
    Turn::tool_calls(&[(id, "read_file", r#"{"file_path": "a.txt"}"#)])
}

/// How many of the requests the provider got carry the loop note.
fn noted(fake: &FakeProvider) -> Vec<usize> {
    fake.requests()
        .iter()
        .enumerate()
        .filter(|(_, r)| r.body.to_string().contains(NOTE))
        .map(|(n, _)| n)
        .collect()
}

fn loop_notices(run: &Run) -> Vec<String> {
    run.of_type("notice")
        .iter()
        .filter_map(|n| n["message"].as_str())
        .filter(|m| m.starts_with("Loop"))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_repeated_call_gets_one_note_then_the_headless_run_stops_with_loop_detected() {
    let env = TestEnv::new().unwrap();
    std::fs::write(env.workspace().join("a.txt"), "alpha\n").unwrap();
    let mut turns: Vec<Turn> = (1..=6).map(|n| read_a(&format!("c{n}"))).collect();
    turns.push(Turn::text("never sent"));
    let fake = FakeProvider::start(turns);
    let run = run(&env, &fake, &["read a.txt"]);
    assert_eq!(run.code, 6, "{}\n{}", run.stdout, run.stderr);
    let result = run.result();
    assert_eq!(result["status"], "loop_detected");
    assert_eq!(result["exit_code"], 6);
    // Three reads make the first sign: the note goes with the fourth request; the fourth read is
    // the second sign, and nothing more is sent.
    assert_eq!(fake.requests().len(), 4);
    assert_eq!(noted(&fake), vec![3]);
    let notices = loop_notices(&run);
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices[0].contains("read_file") && notices[0].contains("3 times"));
    assert!(notices[1].starts_with("Loop again"), "{}", notices[1]);
    // The session keeps every call and its answer, the note included.
    let session = env.only_session();
    let text = session["messages"].to_string();
    assert_eq!(text.matches(NOTE).count(), 1);
}

#[test]
fn the_same_error_with_varied_arguments_is_caught() {
    let env = TestEnv::new().unwrap();
    let missing = |n: usize| {
        let args = format!(r#"{{"file_path": "missing_{n}.txt"}}"#);
        Turn::Reply(Reply {
            tool_calls: vec![ScriptedToolCall {
                id: format!("c{n}"),
                name: "read_file".into(),
                arguments: args,
            }],
            ..Reply::default()
        })
    };
    let mut turns: Vec<Turn> = (1..=4).map(missing).collect();
    turns.push(Turn::text("I cannot find the file."));
    let fake = FakeProvider::start(turns);
    let run = run(&env, &fake, &["read the missing file"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.result()["status"], "answered");
    assert_eq!(noted(&fake), vec![4], "the note follows the fourth failure");
    let notices = loop_notices(&run);
    assert!(
        notices[0].contains("failed with the same error 4 times"),
        "{notices:?}"
    );
}

#[test]
fn the_same_text_with_each_call_is_caught() {
    let env = TestEnv::new().unwrap();
    let turn = |n: usize| {
        Turn::Reply(Reply {
            text: Some("Let me look at the directory listing once more to be sure.".into()),
            tool_calls: vec![ScriptedToolCall {
                id: format!("c{n}"),
                name: "glob".into(),
                arguments: format!(r#"{{"pattern": "*.{n}"}}"#),
            }],
            ..Reply::default()
        })
    };
    let mut turns: Vec<Turn> = (1..=3).map(turn).collect();
    turns.push(Turn::text("Nothing there."));
    let fake = FakeProvider::start(turns);
    let run = run(&env, &fake, &["look"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(noted(&fake), vec![3]);
    assert!(loop_notices(&run)[0].contains("same text came back 3 times"));
}

#[test]
fn a_thirty_step_refactor_that_runs_the_same_check_after_each_edit_is_never_flagged() {
    let env = TestEnv::new().unwrap();
    for n in 0..30 {
        std::fs::write(env.workspace().join(format!("m{n}.txt")), "old name\n").unwrap();
    }
    let mut turns: Vec<Turn> = (0..30)
        .map(|n| {
            let edit =
                json!({"file_path": format!("m{n}.txt"), "target": "old", "replacement": "new"});
            Turn::tool_calls(&[
                (&format!("e{n}"), "update_file", &edit.to_string()),
                (&format!("t{n}"), "bash", r#"{"command": "echo checked"}"#),
            ])
        })
        .collect();
    turns.push(Turn::text("Renamed everywhere."));
    let fake = FakeProvider::start(turns);
    let run = run(&env, &fake, &["--yes", "--max-iterations", "40", "rename"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.result()["status"], "answered");
    assert_eq!(fake.requests().len(), 31);
    assert!(noted(&fake).is_empty());
    assert!(loop_notices(&run).is_empty());
    for n in 0..30 {
        let text = std::fs::read_to_string(env.workspace().join(format!("m{n}.txt"))).unwrap();
        assert_eq!(text, "new name\n");
    }
}

#[test]
fn a_script_is_asked_at_the_second_sign_and_disable_lets_the_model_go_on() {
    let env = TestEnv::new().unwrap();
    std::fs::write(env.workspace().join("a.txt"), "alpha\n").unwrap();
    let mut turns: Vec<Turn> = (1..=9).map(|n| read_a(&format!("c{n}"))).collect();
    turns.push(Turn::text("Read it many times."));
    let fake = FakeProvider::start(turns);
    let (mut child, mut out) = spawn_stream(&env, &fake, "openai:test-model", &[]);
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"type": "user_message", "text": "read a.txt"})
    )
    .unwrap();
    let asked = out
        .wait_for(Duration::from_secs(30), |l| {
            l.contains("\"type\":\"loop_requested\"")
        })
        .expect("the loop question");
    let asked: Value = serde_json::from_str(&asked).unwrap();
    assert!(
        asked["repeated"].as_str().unwrap().contains("read_file"),
        "{asked}"
    );
    assert_eq!(asked["iterations"], 4);
    assert_eq!(fake.requests().len(), 4, "the run waits for the answer");
    let answer =
        json!({"type": "loop_choice", "request_id": asked["request_id"], "choice": "disable"});
    writeln!(stdin, "{answer}").unwrap();
    drop(stdin);
    let run = finish(child, Some(out));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.result()["status"], "answered");
    assert_eq!(fake.requests().len(), 10, "five more reads went unwatched");
    assert_eq!(run.of_type("loop_requested").len(), 1, "asked once");
}

#[test]
fn settings_can_turn_loop_detection_off() {
    let env = TestEnv::new().unwrap();
    std::fs::write(env.workspace().join("a.txt"), "alpha\n").unwrap();
    let config = json!({"settings": {"loop_detection": false}});
    std::fs::write(env.config_file(), config.to_string()).unwrap();
    let mut turns: Vec<Turn> = (1..=6).map(|n| read_a(&format!("c{n}"))).collect();
    turns.push(Turn::text("Done reading."));
    let fake = FakeProvider::start(turns);
    let run = run(&env, &fake, &["read a.txt"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(noted(&fake).is_empty());
    assert!(loop_notices(&run).is_empty());
}
