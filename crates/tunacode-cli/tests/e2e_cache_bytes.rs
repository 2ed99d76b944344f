//! End-to-end: the cached prefix stays byte-identical on every wire format through a session that
//! updates its todos, leaves plan mode and gets the self-evaluation nudge. Between consecutive
//! request bodies, compared as the raw bytes the provider received: the system prompt and the
//! `tools` array are identical, and every history item up to and including the earlier request's
//! last assistant item is identical at the same position in the later one (only Anthropic's
//! `cache_control` markers may move).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use tunacode_testkit::{FakeOptions, FakeProvider, TestEnv, Turn};

fn script() -> Vec<Turn> {
    let plan = r##"{"plan": "# Plan\n1. Look around"}"##;
    vec![
        Turn::tool_calls(&[(
            "t1",
            "todo",
            r#"{"action": "add", "items": ["look", "report"]}"#,
        )]),
        Turn::tool_calls(&[("c1", "list_dir", r#"{"directory": "."}"#)]),
        Turn::tool_calls(&[("p1", "present_plan", plan)]),
        Turn::tool_calls(&[(
            "t2",
            "todo",
            r#"{"action": "update", "id": 1, "status": "completed"}"#,
        )]),
        Turn::tool_calls(&[("c2", "glob", r#"{"pattern": "*.txt"}"#)]),
        Turn::text("TUNACODE DONE: looked around"),
    ]
}

/// A body's top-level values, as the bytes that were sent.
fn fields(raw: &str) -> BTreeMap<String, Box<RawValue>> {
    serde_json::from_str(raw).unwrap()
}

/// The history items of a body, as sent (Anthropic's breakpoints left out: only they may move).
fn history(fields: &BTreeMap<String, Box<RawValue>>) -> Vec<String> {
    let key = ["messages", "input", "contents"]
        .into_iter()
        .find(|k| fields.contains_key(*k))
        .unwrap();
    let items: Vec<Box<RawValue>> = serde_json::from_str(fields[key].get()).unwrap();
    items
        .iter()
        .map(|i| {
            i.get()
                .replace(r#","cache_control":{"type":"ephemeral"}"#, "")
        })
        .collect()
}

/// Whether a history item is the model's (an assistant message, a call, reasoning).
fn is_assistant(item: &str) -> bool {
    let v: serde_json::Value = serde_json::from_str(item).unwrap();
    matches!(v["role"].as_str(), Some("assistant" | "model"))
        || matches!(v["type"].as_str(), Some("function_call" | "reasoning"))
}

fn unmarked(raw: Option<&RawValue>) -> Option<String> {
    raw.map(|r| {
        r.get()
            .replace(r#","cache_control":{"type":"ephemeral"}"#, "")
    })
}

#[test]
fn the_prefix_is_byte_identical_through_todos_plan_mode_and_the_nudge_on_every_wire_format() {
    for (wire, format) in wire_formats() {
        let env = TestEnv::new().unwrap();
        std::fs::write(env.workspace().join("a.txt"), "alpha\n").unwrap();
        let fake = FakeProvider::start_with(format, script(), FakeOptions::default());
        let run = run_on_wire(&env, &fake, wire, &["--plan", "--yes", "look around"]);
        assert_eq!(run.code, 0, "{wire}: {}", run.stderr);
        let modes: Vec<_> = run.of_type("plan_mode_changed");
        assert_eq!(modes.len(), 2, "{wire}: plan mode was entered and left");
        let requests = fake.requests();
        assert_eq!(requests.len(), 6, "{wire}");
        let nudged = |i: usize| requests[i].raw_body.contains("Reflect on your progress");
        assert!(
            !nudged(1) && nudged(4),
            "{wire}: the nudge comes from the third iteration on"
        );
        for (n, pair) in requests.windows(2).enumerate() {
            let (a, b) = (fields(&pair[0].raw_body), fields(&pair[1].raw_body));
            for key in ["system", "instructions", "systemInstruction", "tools"] {
                assert_eq!(
                    unmarked(a.get(key).map(|r| &**r)),
                    unmarked(b.get(key).map(|r| &**r)),
                    "{wire}: `{key}` changed between calls {n} and {}",
                    n + 1
                );
            }
            let (ha, hb) = (history(&a), history(&b));
            if ha[0].contains(r#""role":"system""#) {
                assert_eq!(
                    ha[0],
                    hb[0],
                    "{wire}: the system message changed at call {}",
                    n + 1
                );
            }
            let last_assistant = ha
                .iter()
                .rposition(|i| is_assistant(i))
                .map_or(0, |i| i + 1);
            assert_eq!(
                ha[..last_assistant],
                hb[..last_assistant],
                "{wire}: calls {n} and {} differ before the earlier one's last assistant item",
                n + 1
            );
        }
    }
}
