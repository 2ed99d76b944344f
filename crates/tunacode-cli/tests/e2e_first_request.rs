//! End-to-end: the first request of a session is small. With every built-in tool offered, its body
//! on the Chat wire is at most 8,600 bytes (issue 27's goal: what it was before the tools grew), and
//! no tool says again what another tool says: every clause of every description is said once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::Value;
use tunacode_testkit::{FakeProvider, TestEnv, Turn};

/// Every tool a session offers without MCP servers, in the order it offers them.
const TOOLS: [&str; 14] = [
    "read_file",
    "write_file",
    "update_file",
    "apply_patch",
    "bash",
    "run_command",
    "grep",
    "glob",
    "list_dir",
    "todo",
    "web_fetch",
    "task",
    "present_plan",
    "exit_plan_mode",
];

/// The texts a tool tells the model: its description and its parameters' descriptions.
fn texts(tool: &Value) -> Vec<String> {
    let function = &tool["function"];
    let mut texts = vec![function["description"].as_str().unwrap().to_string()];
    if let Some(properties) = function["parameters"]["properties"].as_object() {
        texts.extend(
            properties
                .values()
                .filter_map(|p| p["description"].as_str())
                .map(str::to_string),
        );
    }
    texts
}

/// The clauses of a text long enough to say something (split at sentence and clause marks).
fn clauses(text: &str) -> Vec<String> {
    text.split(['.', ';', ':', '(', ')', ','])
        .map(|c| c.trim().to_lowercase())
        .filter(|c| c.len() >= 24)
        .collect()
}

#[test]
fn the_first_request_offers_every_tool_in_at_most_8600_bytes_saying_each_thing_once() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("TUNACODE DONE: nothing to do")]);
    let run = run(&env, &fake, &["hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let first = &fake.requests()[0];
    let tools = first.body["tools"].as_array().unwrap();
    let names: Vec<&str> = tools
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, TOOLS);
    assert!(
        first.raw_body.len() <= 8_600,
        "the first request is {} bytes: {}",
        first.raw_body.len(),
        first.raw_body
    );
    for (i, tool) in tools.iter().enumerate() {
        for clause in texts(tool).iter().flat_map(|t| clauses(t)) {
            for (j, other) in tools.iter().enumerate().filter(|(j, _)| *j != i) {
                let said = texts(other).join(" ").to_lowercase();
                assert!(
                    !said.contains(&clause),
                    "`{}` and `{}` both say \"{clause}\"",
                    names[i],
                    names[j]
                );
            }
        }
    }
}
