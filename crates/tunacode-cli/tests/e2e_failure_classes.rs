//! End-to-end: what each class of provider failure costs. A wait the provider states in its
//! rate-limit headers is honoured; a quota that resets later stops at once and says when; an
//! overloaded model is retried, then the configured fallback model carries on and the session
//! records it; an answer that breaks off mid-stream is asked again without running its tools twice.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use serde_json::json;
use tunacode_testkit::{Ending, FakeProvider, Reply, TestEnv, Turn};

#[test]
fn a_rate_limit_reset_header_is_waited_for() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::http_error(
            429,
            &[
                ("x-ratelimit-remaining-requests", "0"),
                ("x-ratelimit-reset-requests", "1.2s"),
            ],
            r#"{"error": {"message": "Rate limit reached for requests", "code": "rate_limit_exceeded"}}"#,
        ),
        Turn::text("Recovered."),
    ]);
    let run = run(&env, &fake, &["hello"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let requests = fake.requests();
    let waited = requests[1]
        .received_at
        .duration_since(requests[0].received_at);
    assert!(
        waited >= Duration::from_millis(1200),
        "retried after {waited:?}"
    );
    let notice = run.of_type("notice")[0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        notice.contains("retrying in 1.2s (retry 1 of 4)"),
        "{notice}"
    );
}

#[test]
fn a_quota_that_resets_later_stops_at_once_and_says_when() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::http_error(
            429,
            &[("retry-after", "7500")],
            r#"{"error": {"message": "Daily request limit reached", "code": "rate_limit_exceeded"}}"#,
        ),
        Turn::text("must not be requested"),
    ]);
    let run = run(&env, &fake, &["hello"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(fake.requests().len(), 1, "not retried");
    let error = &run.result()["error"];
    assert_eq!(error["kind"], "quota");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("resets in 2 h 5 min"), "{message}");
}

#[test]
fn an_overloaded_model_falls_back_to_the_next_configured_one_and_the_session_says_so() {
    let env = TestEnv::new().unwrap();
    let overloaded = || {
        Turn::http_error(
            529,
            &[],
            r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#,
        )
    };
    let fake = FakeProvider::start(vec![overloaded(), overloaded()]);
    let backup = FakeProvider::start(vec![Turn::Reply(Reply {
        text: Some("From the fallback.".into()),
        usage: Some(tunacode_testkit::ScriptedUsage {
            prompt_tokens: 1000,
            completion_tokens: 100,
            cached_tokens: 0,
        }),
        ..Reply::default()
    })]);
    // Only the fallback has prices: its call is priced as itself.
    let config = json!({
        "settings": {"max_retries": 1, "fallback_models": ["backup:fallback-model"]},
        "providers": {"backup": {"base_url": backup.base_url(), "wire_api": "openai-chat"}},
        "models": {"backup:fallback-model": {"input": 2.0, "output": 10.0}},
    });
    std::fs::write(env.config_file(), config.to_string()).unwrap();
    let run = run(&env, &fake, &["hello"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(fake.requests().len(), 2, "retried once, as configured");
    assert_eq!(backup.requests().len(), 1);
    assert_eq!(backup.requests()[0].body["model"], "fallback-model");
    assert_eq!(run.result()["response"], "From the fallback.");
    let cost = run.result()["usage"]["cost"].as_f64().unwrap();
    assert!(
        (cost - 0.003).abs() < 1e-9,
        "1000 in at $2/M and 100 out at $10/M: {cost}"
    );
    let notices: Vec<String> = run
        .of_type("notice")
        .iter()
        .map(|n| n["message"].as_str().unwrap().to_string())
        .collect();
    assert!(
        notices
            .iter()
            .any(|n| n.contains("openai:test-model is overloaded")
                && n.contains("fallback model backup:fallback-model")),
        "{notices:?}"
    );
    let session = env.only_session();
    let answer = session["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(answer["model"], "backup:fallback-model", "{answer}");
}

#[test]
fn an_answer_that_breaks_off_is_asked_again_without_running_its_tools_twice() {
    let env = TestEnv::new().unwrap();
    std::fs::write(env.workspace().join("a.txt"), "alpha\n").unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("c1", "bash", r#"{"command": "echo ran >> runs.txt"}"#)]),
        Turn::Reply(Reply {
            text: Some("The command ran and then the".into()),
            ending: Ending::Cut { after_events: 4 },
            ..Reply::default()
        }),
        Turn::text("The command ran once."),
    ]);
    let run = run(&env, &fake, &["--yes", "run it"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.result()["response"], "The command ran once.");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("runs.txt")).unwrap(),
        "ran\n"
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    // The request asked again is the one that broke: the same history, the tool's answer in it.
    assert_eq!(
        messages(&requests[1].body).len(),
        messages(&requests[2].body).len()
    );
}
