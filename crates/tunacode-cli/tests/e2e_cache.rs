//! End-to-end: prompt caching. Consecutive requests of every provider share their prefix (system
//! prompt, tools, and the earlier history unchanged), so automatic caches hit; the cache hit ratio is
//! reported per call and for the session; a call that read nothing from the cache although the one
//! before did is pointed out.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::Value;
use tunacode_testkit::{FakeOptions, FakeProvider, Reply, ScriptedUsage, TestEnv, Turn};

fn script() -> Vec<Turn> {
    vec![
        Turn::tool_calls(&[("c1", "list_dir", r#"{"directory": "."}"#)]),
        Turn::tool_calls(&[("c2", "read_file", r#"{"file_path": "a.txt"}"#)]),
        Turn::tool_calls(&[("c3", "glob", r#"{"pattern": "*.txt"}"#)]),
        Turn::text("done"),
    ]
}

/// The history array of a request body in any wire format.
fn history(body: &Value) -> Vec<Value> {
    let key = ["messages", "input", "contents"]
        .into_iter()
        .find(|k| body.get(*k).is_some())
        .unwrap();
    body[key].as_array().unwrap().clone()
}

/// A value without its prompt-cache breakpoints (they mark where the cache ends, not its content).
fn unmarked(value: &Value) -> Value {
    tunacode_testkit::without_key(value, "cache_control")
}

#[test]
fn consecutive_requests_of_every_provider_share_their_prefix() {
    for (wire, format) in wire_formats() {
        let env = TestEnv::new().unwrap();
        std::fs::write(env.workspace().join("a.txt"), "alpha\n").unwrap();
        let fake = FakeProvider::start_with(format, script(), FakeOptions::default());
        let run = run_on_wire(&env, &fake, wire, &["--yes", "look around"]);
        assert_eq!(run.code, 0, "{wire}: {}", run.stderr);
        let requests = fake.requests();
        assert_eq!(requests.len(), 4, "{wire}");
        for pair in requests.windows(2) {
            let (a, b) = (unmarked(&pair[0].body), unmarked(&pair[1].body));
            for key in [
                "system",
                "instructions",
                "systemInstruction",
                "tools",
                "model",
            ] {
                assert_eq!(
                    a.get(key),
                    b.get(key),
                    "{wire}: `{key}` changed between requests"
                );
            }
            let (ha, hb) = (history(&a), history(&b));
            assert!(hb.len() > ha.len(), "{wire}");
            // Everything up to the newest turn is sent again unchanged; only the newest turn may
            // differ (it carries the per-call self-evaluation question, which is never stored).
            let stable = ha.len() - 1;
            assert_eq!(
                ha[..stable],
                hb[..stable],
                "{wire}: the earlier history changed"
            );
        }
    }
}

fn cached_turn(calls: &[(&str, &str, &str)], prompt: u64, cached: u64) -> Turn {
    Turn::Reply(Reply {
        tool_calls: Turn::tool_calls(calls).calls(),
        text: calls.is_empty().then(|| "done".to_string()),
        usage: Some(ScriptedUsage {
            prompt_tokens: prompt,
            completion_tokens: 10,
            cached_tokens: cached,
        }),
        ..Reply::default()
    })
}

#[test]
fn cache_hits_are_reported_and_a_miss_after_a_hit_is_pointed_out() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        cached_turn(&[("c1", "list_dir", r#"{"directory": "."}"#)], 3000, 0),
        cached_turn(&[("c2", "list_dir", r#"{"directory": "."}"#)], 3500, 2800),
        cached_turn(&[], 4000, 0),
    ]);
    let run = run(&env, &fake, &["--yes", "look"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let ratios: Vec<f64> = run
        .of_type("usage_updated")
        .iter()
        .map(|u| u["last_call"]["cache_hit_ratio"].as_f64().unwrap())
        .collect();
    assert_eq!(ratios, [0.0, 0.8, 0.0]);
    let session = &run.result()["usage"];
    assert_eq!(session["cached_tokens"], 2800);
    assert!((session["cache_hit_ratio"].as_f64().unwrap() - 2800.0 / 10500.0).abs() < 1e-9);
    let misses: Vec<&Value> = run
        .of_type("notice")
        .into_iter()
        .filter(|n| n["message"].as_str().unwrap().contains("prompt cache"))
        .collect();
    assert_eq!(misses.len(), 1, "only the miss after a hit: {misses:?}");
    assert!(
        misses[0]["message"]
            .as_str()
            .unwrap()
            .contains("4000 input tokens")
    );
    assert!(
        misses[0]["message"]
            .as_str()
            .unwrap()
            .contains("the start of the request changed"),
        "{misses:?}"
    );
}
