//! End-to-end: saved sessions. A save that fails (a file-size limit) is an error that keeps the
//! previous file and leaves no temporary file; `--continue` says when the newest session is
//! unreadable; a session file copied in by hand is listed and loads.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Stdio;

use common::*;
use tunacode_testkit::{FakeProvider, TestEnv, Turn};

fn session_dir(env: &TestEnv) -> std::path::PathBuf {
    env.session_files()[0].parent().unwrap().to_path_buf()
}

#[test]
fn a_save_past_the_file_size_limit_is_an_error_and_keeps_the_previous_file() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("short"), Turn::text(&"long ".repeat(4000))]);
    assert_eq!(run(&env, &fake, &["first"]).code, 0);
    let file = env.session_files()[0].clone();
    let before = std::fs::read(&file).unwrap();
    // `ulimit -f` counts 1024-byte blocks: the saved file may not grow past its size now.
    let blocks = before.len().div_ceil(1024) + 1;
    let script = format!(
        "ulimit -f {blocks}; exec {} run --model openai:test-model --base-url {} --output stream-json \
         --continue second",
        bin().display(),
        fake.base_url()
    );
    let mut cmd = env.command(std::path::Path::new("bash"));
    cmd.args(["-c", &script])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = finish(cmd.spawn().unwrap(), None);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let result = out.result();
    assert_eq!(result["status"], "error");
    assert_eq!(result["error"]["kind"], "store");
    let message = result["error"]["message"].as_str().unwrap();
    assert!(message.contains("could not save the session"), "{message}");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        before,
        "the previous file is kept"
    );
    let leftovers: Vec<String> = std::fs::read_dir(session_dir(&env))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn continue_says_when_the_newest_session_is_unreadable() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("ok"), Turn::text("again")]);
    assert_eq!(run(&env, &fake, &["first"]).code, 0);
    let broken = session_dir(&env).join("broken-session.json");
    std::fs::write(&broken, "{\"version\": 1, \"messages\": [").unwrap();
    let out = run(&env, &fake, &["--continue", "second"]);
    assert_ne!(out.code, 0);
    assert!(
        out.stderr.contains("broken-session.json"),
        "the unreadable file is named: {}",
        out.stderr
    );
    assert_eq!(fake.requests().len(), 1, "nothing was sent");
}

#[test]
fn a_session_file_copied_in_by_hand_is_listed_and_loads() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("ok"), Turn::text("resumed")]);
    assert_eq!(run(&env, &fake, &["first"]).code, 0);
    let dir = session_dir(&env);
    let original = std::fs::read_to_string(&env.session_files()[0]).unwrap();
    let mut copied: serde_json::Value = serde_json::from_str(&original).unwrap();
    copied["session_id"] = "copied-by-hand".into();
    copied["last_modified"] = "2099-01-01T00:00:00Z".into();
    copied["messages"][0]["parts"][0]["content"] = "a task from elsewhere".into();
    std::fs::write(dir.join("copied-by-hand.json"), copied.to_string()).unwrap();
    let list = list_sessions(&env);
    assert_eq!(list[0]["session_id"], "copied-by-hand");
    assert_eq!(list[0]["title"], "a task from elsewhere");
    assert_eq!(list.as_array().unwrap().len(), 2);
    let out = run(&env, &fake, &["--session", "copied-by-hand", "go on"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let body = fake.requests()[1].body.to_string();
    assert!(body.contains("a task from elsewhere"), "{body}");
}
