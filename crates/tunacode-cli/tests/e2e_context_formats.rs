//! End-to-end: compaction and the overflow retry on every wire format, against fakes that refuse what
//! each real provider refuses (unpaired calls; on Anthropic, tool blocks in a request without tools
//! and turns that do not alternate; on Gemini, turns that do not alternate).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use common::*;
use serde_json::json;
use tunacode_testkit::{FakeOptions, FakeProvider, TestEnv, Turn, WireFormat};

const SUMMARY: &str = "## Task\nRead every file and report.\n## Done\nRead the files so far.";

/// The error each wire format's provider sends when the prompt is too long.
fn overflow(wire: &str) -> &'static str {
    match wire {
        "openai-responses" => {
            r#"{"error": {"message": "Your input exceeds the context window of this model.", "type": "invalid_request_error", "code": "context_length_exceeded"}}"#
        }
        "anthropic" => {
            r#"{"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > 200000 maximum"}}"#
        }
        "gemini" => {
            r#"{"error": {"code": 400, "message": "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", "status": "INVALID_ARGUMENT"}}"#
        }
        _ => {
            r#"{"error": {"message": "This model's maximum context length is 8192 tokens", "code": "context_length_exceeded"}}"#
        }
    }
}

fn start(format: Arc<dyn WireFormat>, script: Vec<Turn>) -> FakeProvider {
    let options = FakeOptions {
        summary: Some(SUMMARY.into()),
        ..FakeOptions::default()
    };
    FakeProvider::start_with(format, script, options)
}

fn run_on(env: &TestEnv, fake: &FakeProvider, wire: &str, extra: &[&str]) -> Run {
    let mut args = vec!["--yes"];
    args.extend_from_slice(extra);
    run_on_wire(env, fake, wire, &args)
}

fn small_window(env: &TestEnv, window: u64) {
    // The script rereads the same files to fill the window, a loop by design: detection off here.
    let config = json!({
        "models": {"custom:test-model": {"context_window": window, "max_output": 1000}},
        "settings": {"loop_detection": false},
    });
    std::fs::write(env.config_file(), config.to_string()).unwrap();
}

/// Whether a request offers tools (a summary request offers none).
fn offers_tools(body: &serde_json::Value) -> bool {
    body.get("tools")
        .and_then(|t| t.as_array())
        .is_some_and(|t| !t.is_empty())
}

#[test]
fn a_long_task_in_a_small_window_is_compacted_and_finishes_on_every_wire_format() {
    for (wire, format) in wire_formats() {
        let env = TestEnv::new().unwrap();
        for i in 0..3 {
            let line =
                format!("line {i} of a file that is a few kilobytes long, with some text.\n");
            std::fs::write(env.workspace().join(format!("f{i}.txt")), line.repeat(40)).unwrap();
        }
        small_window(&env, 6000);
        let mut script: Vec<Turn> = (0..24)
            .map(|i| {
                let args = format!(r#"{{"file_path": "f{}.txt"}}"#, i % 3);
                Turn::tool_calls(&[(&format!("call_{i}"), "read_file", &args)])
            })
            .collect();
        script.push(Turn::text("TUNACODE DONE: read them all."));
        let fake = start(format, script);
        let run = run_on(
            &env,
            &fake,
            wire,
            &["--max-iterations", "40", "read every file"],
        );
        assert_eq!(run.code, 0, "{wire}: {}\n{}", run.stderr, run.stdout);
        assert_eq!(run.result()["status"], "completed", "{wire}");
        let requests = fake.requests();
        let summaries = requests.iter().filter(|r| !offers_tools(&r.body)).count();
        assert!(summaries > 0, "{wire}: no compaction request was made");
        assert!(!run.of_type("context_compacted").is_empty(), "{wire}");
        let last = requests.last().unwrap();
        assert!(
            last.raw_body.contains("Read every file and report"),
            "{wire}: the summary is carried"
        );
    }
}

#[test]
fn a_context_overflow_is_answered_by_one_compaction_and_one_retry_on_every_wire_format() {
    for (wire, format) in wire_formats() {
        let overflow = overflow(wire);
        let env = TestEnv::new().unwrap();
        std::fs::write(env.workspace().join("a.txt"), "alpha\n").unwrap();
        let fake = start(
            format,
            vec![
                Turn::tool_calls(&[("c1", "read_file", r#"{"file_path": "a.txt"}"#)]),
                Turn::tool_calls(&[("c2", "list_dir", r#"{"directory": "."}"#)]),
                Turn::http_error(400, &[], overflow),
                Turn::text("Done after compacting."),
            ],
        );
        let run = run_on(&env, &fake, wire, &["read a.txt"]);
        assert_eq!(run.code, 0, "{wire}: {}", run.stderr);
        assert_eq!(run.result()["response"], "Done after compacting.", "{wire}");
        let kinds: Vec<bool> = fake
            .requests()
            .iter()
            .map(|r| offers_tools(&r.body))
            .collect();
        assert_eq!(
            kinds,
            [true, true, true, false, true],
            "{wire}: calls, overflow, compaction, retry"
        );
        assert_eq!(run.of_type("context_compacted").len(), 1, "{wire}");
    }
}
