//! End-to-end: context that never overflows. A 100-call task with 2-4 KB tool outputs against a model
//! whose window is 8,000 tokens finishes, no request passes the window, the history is compacted by
//! requests that carry no tools, and every later request carries the summary and only paired calls;
//! a provider's "context too long" error is answered by one compaction and one retry.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use common::*;
use serde_json::json;
use tunacode_testkit::{FakeOptions, FakeProvider, OpenAiChat, TestEnv, Turn};

const SUMMARY: &str = "## Task\nRead every file and report.\n## Done\nRead the files so far.";

fn fake(script: Vec<Turn>) -> FakeProvider {
    FakeProvider::start_with(
        Arc::new(OpenAiChat),
        script,
        FakeOptions {
            summary: Some(SUMMARY.into()),
            ..FakeOptions::default()
        },
    )
}

fn write_config(env: &TestEnv, window: u64) {
    // The scripts read the same few files over and over to fill the window: a loop by design, so
    // loop detection is off here (it has its own tests, e2e_loop_detection.rs).
    let config = json!({
        "models": {"openai:test-model": {"context_window": window, "max_output": 1000}},
        "settings": {"loop_detection": false},
    });
    std::fs::write(env.config_file(), config.to_string()).unwrap();
}

#[test]
fn a_long_task_in_a_small_window_is_compacted_and_finishes() {
    let env = TestEnv::new().unwrap();
    for i in 0..5 {
        let line = format!("line {i} of a file that is a few kilobytes long, with some text.\n");
        std::fs::write(
            env.workspace().join(format!("f{i}.txt")),
            line.repeat(30 + 10 * i),
        )
        .unwrap();
    }
    write_config(&env, 8000);
    let mut script: Vec<Turn> = (0..100)
        .map(|i| {
            let args = format!(r#"{{"file_path": "f{}.txt"}}"#, i % 5);
            Turn::tool_calls(&[(&format!("call_{i}"), "read_file", &args)])
        })
        .collect();
    script.push(Turn::text("TUNACODE DONE: read them all."));
    let fake = fake(script);
    let run = run(&env, &fake, &["--max-iterations", "120", "read every file"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.stdout);
    assert_eq!(run.result()["status"], "completed");

    let requests = fake.requests();
    let compactions: Vec<usize> = (0..requests.len())
        .filter(|&i| requests[i].body.get("tools").is_none())
        .collect();
    assert!(!compactions.is_empty(), "no compaction request was made");
    assert!(!run.of_type("context_compacted").is_empty());
    for (i, r) in requests.iter().enumerate() {
        let tokens = r.raw_body.chars().count() / 4;
        assert!(tokens <= 8000, "request {i} has ~{tokens} tokens");
        if r.body.get("tools").is_some() {
            assert_tool_pairing(&r.body);
        }
        if i > compactions[0] && r.body.get("tools").is_some() {
            assert!(
                r.raw_body.contains("[Compaction summary]")
                    && r.raw_body.contains("Read every file"),
                "request {i} lacks the summary"
            );
        }
    }
    // The user's own words survive every compaction.
    let last = requests.last().unwrap();
    assert!(last.raw_body.contains("read every file"));
    // The replaced messages stay in the session, marked.
    let session = env.only_session();
    let compacted = session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["compacted"] == true)
        .count();
    assert!(compacted > 100, "{compacted} messages marked compacted");
}

#[test]
fn a_context_overflow_is_answered_by_one_compaction_and_one_retry() {
    let env = TestEnv::new().unwrap();
    std::fs::write(env.workspace().join("a.txt"), "alpha\n").unwrap();
    let overflow = r#"{"error": {"message": "This model's maximum context length is 8192 tokens", "type": "invalid_request_error", "code": "context_length_exceeded"}}"#;
    let fake = fake(vec![
        Turn::tool_calls(&[("c1", "read_file", r#"{"file_path": "a.txt"}"#)]),
        Turn::http_error(400, &[], overflow),
        Turn::text("Done after compacting."),
    ]);
    let run = run(&env, &fake, &["read a.txt"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.result()["response"], "Done after compacting.");
    let requests = fake.requests();
    let kinds: Vec<bool> = requests
        .iter()
        .map(|r| r.body.get("tools").is_some())
        .collect();
    assert_eq!(
        kinds,
        [true, true, false, true],
        "call, overflow, compaction, retry"
    );
    assert!(requests[3].raw_body.contains("[Compaction summary]"));
    assert_tool_pairing(&requests[3].body);
    assert_eq!(run.of_type("context_compacted").len(), 1);
}

#[test]
fn a_second_overflow_is_a_clear_error() {
    let env = TestEnv::new().unwrap();
    let overflow = r#"{"error": {"message": "maximum context length exceeded", "code": "context_length_exceeded"}}"#;
    let fake = fake(vec![
        Turn::tool_calls(&[("c1", "list_dir", r#"{"directory": "."}"#)]),
        Turn::http_error(400, &[], overflow),
        Turn::http_error(400, &[], overflow),
    ]);
    let run = run(&env, &fake, &["look"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.result()["error"]["kind"], "context_overflow");
    assert_eq!(run.of_type("context_compacted").len(), 1);
}

#[test]
fn compact_on_demand_keeps_what_the_user_asks_and_later_requests_carry_the_summary() {
    let env = TestEnv::new().unwrap();
    // Enough history that a summary is smaller than what it replaces (a summary that is not is not
    // applied: the test above).
    std::fs::write(
        env.workspace().join("notes.txt"),
        "a line of notes\n".repeat(300),
    )
    .unwrap();
    let fake = fake(vec![
        Turn::tool_calls(&[("c1", "read_file", r#"{"file_path": "notes.txt"}"#)]),
        Turn::text("Listed."),
        Turn::text("Still here."),
    ]);
    let run = stream_session(
        &env,
        &fake,
        &[
            json!({"type": "user_message", "text": "list the files"}),
            json!({"type": "compact", "focus": "the file names"}),
            json!({"type": "user_message", "text": "what was there?"}),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results: Vec<&str> = run
        .of_type("result")
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(results, ["answered", "compacted", "answered"]);
    let requests = fake.requests();
    let summary_request = requests
        .iter()
        .find(|r| r.body.get("tools").is_none())
        .expect("a compaction request");
    assert!(summary_request.raw_body.contains("the file names"));
    let last = requests.last().unwrap();
    assert!(
        last.raw_body.contains("[Compaction summary]") && last.raw_body.contains("list the files")
    );
    assert_tool_pairing(&last.body);
}

#[test]
fn a_summary_that_would_not_shrink_the_history_is_not_applied_and_says_so() {
    let env = TestEnv::new().unwrap();
    let long_summary = format!("## Task\n{}", "A very detailed summary line.\n".repeat(60));
    let fake = FakeProvider::start_with(
        Arc::new(OpenAiChat),
        vec![Turn::text("Hi."), Turn::text("Still here.")],
        FakeOptions {
            summary: Some(long_summary),
            ..FakeOptions::default()
        },
    );
    let run = stream_session(
        &env,
        &fake,
        &[
            json!({"type": "user_message", "text": "hello"}),
            json!({"type": "compact"}),
            json!({"type": "user_message", "text": "and now?"}),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.of_type("context_compacted").is_empty(),
        "{}",
        run.stdout
    );
    let skipped: Vec<&serde_json::Value> = run
        .of_type("notice")
        .into_iter()
        .filter(|n| {
            n["message"]
                .as_str()
                .unwrap()
                .starts_with("Compaction skipped")
        })
        .collect();
    assert_eq!(skipped.len(), 1, "{}", run.stdout);
    let last = fake.requests().last().unwrap().raw_body.clone();
    assert!(!last.contains("[Compaction summary]"), "{last}");
    assert!(last.contains("hello") && last.contains("Hi."), "{last}");
}

#[test]
fn a_large_attachment_in_the_kept_turn_is_shortened_so_the_request_fits() {
    let env = TestEnv::new().unwrap();
    let big: String = (0..500)
        .map(|i| format!("pub fn function_number_{i}(x: u32) -> u32 {{ x + {i} }}\n"))
        .collect();
    assert!(big.len() > 26_000);
    std::fs::write(env.workspace().join("big.rs"), &big).unwrap();
    write_config(&env, 8000);
    let fake = fake(vec![Turn::text("Hi."), Turn::text("It adds numbers.")]);
    let run = stream_session(
        &env,
        &fake,
        &[
            json!({"type": "user_message", "text": "hello, I will show you a file"}),
            json!({"type": "user_message", "text": "explain @big.rs"}),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let compacted = run.of_type("context_compacted");
    assert_eq!(compacted.len(), 1, "{}", run.stdout);
    let after = compacted[0]["tokens_after"].as_u64().unwrap();
    assert!(after < 8000 * 85 / 100, "still over the threshold: {after}");
    assert!(after < compacted[0]["tokens_before"].as_u64().unwrap());
    assert!(
        run.of_type("notice").iter().any(|n| n["message"]
            .as_str()
            .unwrap()
            .starts_with("Attachments shortened to fit the window: big.rs")),
        "{}",
        run.stdout
    );
    let last = fake.requests().last().unwrap().raw_body.clone();
    assert!(
        last.len() / 4 < 8000 * 85 / 100,
        "{} bytes sent",
        last.len()
    );
    assert!(last.contains("function_number_1(") && !last.contains("function_number_499("));
    assert!(last.contains("read_file big.rs for the rest"));
    // The whole attachment stays in the session, marked as replaced.
    let session = env.only_session().to_string();
    assert!(session.contains("function_number_499("));
}
