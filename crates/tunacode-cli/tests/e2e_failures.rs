//! End-to-end: provider errors, stalls, timeouts, aborts and bad files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;
use tunacode_testkit::{Ending, FakeProvider, LineReader, Reply, TestEnv, Turn};

fn stalled(text: &str, after_events: usize) -> Turn {
    Turn::Reply(Reply {
        text: Some(text.into()),
        chunk_chars: 4,
        ending: Ending::Stall { after_events },
        ..Reply::default()
    })
}

fn last_response_text(session: &Value) -> String {
    let msgs = session["messages"].as_array().unwrap();
    let last = msgs
        .iter()
        .rev()
        .find(|m| m["kind"] == "response")
        .expect("a response");
    last["parts"][0]["content"].as_str().unwrap().to_string()
}

#[test]
fn rate_limit_with_retry_after_is_retried_after_the_asked_delay() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::http_error(
            429,
            &[("retry-after", "1")],
            r#"{"error": {"message": "Rate limit reached", "type": "requests"}}"#,
        ),
        Turn::text("Recovered."),
    ]);
    let run = run(&env, &fake, &["hello"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.result()["response"], "Recovered.");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let waited = requests[1]
        .received_at
        .duration_since(requests[0].received_at);
    assert!(waited >= Duration::from_secs(1), "retried after {waited:?}");
    let notice = run.of_type("notice");
    assert!(
        notice[0]["message"]
            .as_str()
            .unwrap()
            .contains("retrying in 1.0s"),
        "{notice:?}"
    );
}

#[test]
fn auth_error_is_not_retried_and_says_what_to_set() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![Turn::http_error(
        401,
        &[],
        r#"{"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}"#,
    )]);
    let run = run(&env, &fake, &["hello"]);
    assert_eq!(run.code, 1);
    assert_eq!(fake.requests().len(), 1);
    let error = &run.result()["error"];
    assert_eq!(error["kind"], "auth");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("Incorrect API key provided") && message.contains("OPENAI_API_KEY"),
        "{message}"
    );
}

#[test]
fn server_errors_and_a_cut_stream_before_output_are_retried() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::http_error(500, &[], r#"{"error": {"message": "boom"}}"#),
        Turn::Reply(Reply {
            ending: Ending::Cut { after_events: 1 },
            ..Reply::default()
        }),
        Turn::text("Third time lucky."),
    ]);
    let run = run(&env, &fake, &["hello"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(fake.requests().len(), 3);
    assert_eq!(run.result()["response"], "Third time lucky.");
}

#[test]
fn a_stream_that_keeps_breaking_after_output_is_asked_twice_more_then_keeps_the_partial_text() {
    let env = TestEnv::new().unwrap();
    let cut = || {
        Turn::Reply(Reply {
            text: Some("Half of an answer that".into()),
            ending: Ending::Cut { after_events: 4 },
            ..Reply::default()
        })
    };
    let fake = FakeProvider::start(vec![
        cut(),
        cut(),
        cut(),
        Turn::text("must not be requested"),
    ]);
    let run = run(&env, &fake, &["hello"]);
    assert_eq!(run.code, 1);
    assert_eq!(
        fake.requests().len(),
        3,
        "asked again twice, said each time"
    );
    let said = run.of_type("notice");
    let resumed = said
        .iter()
        .filter(|n| {
            n["message"]
                .as_str()
                .unwrap()
                .contains("The answer broke off")
        })
        .count();
    assert_eq!(resumed, 2, "{said:?}");
    assert_eq!(run.result()["error"]["kind"], "network");
    assert!(last_response_text(&env.only_session()).ends_with("[INTERRUPTED]"));
}

#[test]
fn a_stalled_stream_ends_in_the_idle_timeout() {
    let env = TestEnv::new().unwrap();
    let stall = || stalled("Thinking about it", 3);
    let fake = FakeProvider::start(vec![stall(), stall(), stall()]);
    let run = run_with_env(
        &env,
        &fake,
        &["hello"],
        &[("TUNACODE_STREAM_IDLE_TIMEOUT", "0.5")],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.result()["error"]["kind"], "idle_timeout");
    assert_eq!(
        fake.requests().len(),
        3,
        "asked again twice after output reached the user, never silently"
    );
    let kept = last_response_text(&env.only_session());
    assert_eq!(kept, "Thinking\n\n[INTERRUPTED]");
}

#[test]
fn a_stall_before_any_output_is_retried() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![stalled("never shown", 0), Turn::text("Fine now.")]);
    let run = run_with_env(
        &env,
        &fake,
        &["hello"],
        &[("TUNACODE_STREAM_IDLE_TIMEOUT", "0.3")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.result()["response"], "Fine now.");
    assert_eq!(fake.requests().len(), 2);
}

#[test]
fn the_global_timeout_ends_with_exit_code_4_and_a_valid_session() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![stalled("Working on", 3)]);
    let run = run(&env, &fake, &["--timeout", "0.5", "hello"]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert_eq!(run.result()["status"], "timeout");
    assert_eq!(run.of_type("request_timed_out").len(), 1);
    assert!(last_response_text(&env.only_session()).ends_with("[INTERRUPTED]"));
}

#[test]
fn abort_mid_stream_keeps_interrupted_text_and_a_loadable_session() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        stalled("Here is the first part of", 5),
        Turn::text("Continuing."),
    ]);
    let mut child = spawn(&env, &fake, &["explain"], &[]);
    let mut reader = LineReader::new(child.stdout.take().unwrap());
    let seen = reader.wait_for(RUN_LIMIT, |l| l.contains("\"text_delta\""));
    assert!(seen.is_some(), "no text streamed before the abort");
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let run = finish(child, Some(reader));
    assert_eq!(run.code, 130, "{}", run.stderr);
    assert_eq!(run.result()["status"], "aborted");
    let aborted = run.of_type("request_aborted");
    let partial = aborted[0]["partial_text"].as_str().unwrap().to_string();
    assert!(
        !partial.is_empty() && "Here is the first part of".starts_with(&partial),
        "{partial:?}"
    );
    let session = env.only_session();
    assert_eq!(
        last_response_text(&session),
        format!("{partial}\n\n[INTERRUPTED]")
    );
    // The session loads and continues: the interrupted text is part of the next request.
    let id = session["session_id"].as_str().unwrap().to_string();
    let next = common::run(&env, &fake, &["--session", &id, "go on"]);
    assert_eq!(next.code, 0, "{}", next.stderr);
    let msgs = messages(&fake.requests()[1].body);
    assert!(
        msgs.iter().any(|m| m["role"] == "assistant"
            && m["content"].as_str().unwrap().ends_with("[INTERRUPTED]"))
    );
}

#[test]
fn a_malformed_config_is_a_clear_error_and_is_left_untouched() {
    let env = TestEnv::new().unwrap();
    let text = "{\n  \"default_model\": \"openai:x\",\n  \"settings\": {\"max_iterations\": \"many\"}\n}\n";
    std::fs::write(env.config_file(), text).unwrap();
    let fake = FakeProvider::start(vec![]);
    let run = run(&env, &fake, &["hello"]);
    assert_eq!(run.code, 1);
    let expected = format!("{}:3:", env.config_file().display());
    assert!(run.stderr.contains(&expected), "{}", run.stderr);
    assert!(run.stderr.contains("invalid type"), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(env.config_file()).unwrap(), text);
    assert!(fake.requests().is_empty());
}

#[test]
fn a_corrupt_session_is_reported_and_never_overwritten() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("First.")]);
    let first = run(&env, &fake, &["hi"]);
    let id = first.result()["session_id"].as_str().unwrap().to_string();
    let path = env.session_files()[0].clone();
    std::fs::write(&path, "{\"version\": 1, \"messages\": [").unwrap();
    let second = run(&env, &fake, &["--session", &id, "again"]);
    assert_eq!(second.code, 1);
    assert!(
        second.stderr.contains(&path.display().to_string()),
        "{}",
        second.stderr
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\"version\": 1, \"messages\": ["
    );
}

#[test]
fn a_missing_key_for_a_hosted_provider_fails_before_any_request() {
    let env = TestEnv::new().unwrap();
    let out = env
        .command(&bin())
        .args(["run", "--model", "openai:gpt-4.1", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("OPENAI_API_KEY") && err.contains("tunacode.json"),
        "{err}"
    );
}
