//! End-to-end: the real binary speaking Anthropic Messages to the fake provider.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Stdio;

use common::*;
use pretty_assertions::assert_eq;
use serde_json::Value;
use tunacode_testkit::{
    AnthropicMessages, FakeOptions, FakeProvider, Reply, ScriptedUsage, TestEnv, Turn,
};

/// Runs `tunacode run --model anthropic:claude-test` against `fake` with `ANTHROPIC_API_KEY=test-key`.
fn run_anthropic(env: &TestEnv, fake: &FakeProvider, prompt: &str) -> Run {
    let mut cmd = env.command(&bin());
    cmd.args([
        "run",
        "--model",
        "anthropic:claude-test",
        "--base-url",
        &fake.base_url(),
        "--yes",
        "--output",
        "stream-json",
        prompt,
    ])
    .env("ANTHROPIC_API_KEY", "test-key")
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    finish(cmd.spawn().expect("spawn tunacode"), None)
}

/// Every request alternates user/assistant, starts with the user, and answers each assistant's
/// `tool_use` blocks with `tool_result` blocks at the front of the very next user message.
/// Returns a compact shape such as `user[text] assistant[list_dir:toolu_1] user[result:toolu_1]`.
fn check_anthropic_pairing(body: &Value) -> Vec<String> {
    let messages = body["messages"].as_array().expect("messages");
    let mut shape = Vec::new();
    let mut open: Vec<String> = Vec::new();
    let mut expected_role = "user";
    for m in messages {
        let role = m["role"].as_str().unwrap();
        assert_eq!(role, expected_role, "roles must alternate: {body}");
        expected_role = if role == "user" { "assistant" } else { "user" };
        let blocks = m["content"].as_array().expect("content blocks");
        assert!(!blocks.is_empty(), "empty message in {body}");
        let mut items = Vec::new();
        if role == "assistant" {
            assert!(open.is_empty(), "unanswered tool_use {open:?} in {body}");
            for b in blocks {
                if b["type"] == "tool_use" {
                    assert!(b["input"].is_object(), "input must be an object: {b}");
                    open.push(b["id"].as_str().unwrap().to_string());
                    items.push(format!(
                        "{}:{}",
                        b["name"].as_str().unwrap(),
                        b["id"].as_str().unwrap()
                    ));
                } else {
                    items.push(b["type"].as_str().unwrap().to_string());
                }
            }
        } else {
            let results: Vec<String> = blocks
                .iter()
                .take_while(|b| b["type"] == "tool_result")
                .map(|b| b["tool_use_id"].as_str().unwrap().to_string())
                .collect();
            assert!(
                blocks[results.len()..]
                    .iter()
                    .all(|b| b["type"] != "tool_result"),
                "tool_result blocks must come first: {body}"
            );
            assert_eq!(
                results, open,
                "tool_result ids must answer the tool_use ids: {body}"
            );
            open.clear();
            items.extend(results.iter().map(|id| format!("result:{id}")));
            items.extend(
                blocks[results.len()..]
                    .iter()
                    .map(|b| b["type"].as_str().unwrap().to_string()),
            );
        }
        shape.push(format!("{role}[{}]", items.join(",")));
    }
    assert!(open.is_empty(), "unanswered tool_use {open:?} in {body}");
    shape
}

#[test]
fn multi_step_task_over_anthropic_messages_lists_reads_and_writes() {
    let env = TestEnv::new().unwrap();
    std::fs::write(env.workspace().join("notes.txt"), "alpha\nbeta\n").unwrap();
    let fake = FakeProvider::start_with(
        std::sync::Arc::new(AnthropicMessages),
        vec![
            Turn::Reply(Reply {
                reasoning: Some("I should look at the workspace first.".into()),
                text: Some("Let me look around.".into()),
                tool_calls: Turn::tool_calls(&[("toolu_ls", "list_dir", r#"{"directory": "."}"#)])
                    .calls(),
                usage: Some(ScriptedUsage {
                    prompt_tokens: 120,
                    completion_tokens: 12,
                    cached_tokens: 100,
                }),
                ..Reply::default()
            }),
            Turn::tool_calls(&[("toolu_read", "read_file", r#"{"file_path": "notes.txt"}"#)]),
            Turn::tool_calls(&[(
                "toolu_write",
                "write_file",
                r#"{"file_path": "out/summary.txt", "content": "2 lines: alpha, beta\n"}"#,
            )]),
            Turn::Reply(Reply {
                text: Some("TUNACODE DONE: Wrote out/summary.txt.".into()),
                usage: Some(ScriptedUsage {
                    prompt_tokens: 300,
                    completion_tokens: 8,
                    cached_tokens: 0,
                }),
                ..Reply::default()
            }),
        ],
        FakeOptions::default(),
    );
    let run = run_anthropic(&env, &fake, "summarize notes.txt into out/summary.txt");
    assert_summary_task_done(&env, &run, 420);

    let requests = fake.requests();
    assert_eq!(requests.len(), 4);
    for r in &requests {
        assert_eq!(r.path, "/v1/messages");
        assert_eq!(r.header("x-api-key"), Some("test-key"));
        assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
        assert_eq!(r.header("authorization"), None);
        assert_eq!(r.body["model"], "claude-test");
        assert_eq!(r.body["stream"], true);
        // The system prompt is one text block carrying a prompt-cache breakpoint.
        assert!(
            r.body["system"][0]["text"]
                .as_str()
                .is_some_and(|s| !s.is_empty())
        );
        assert_eq!(r.body["system"][0]["cache_control"]["type"], "ephemeral");
        assert!(r.body["max_tokens"].as_u64().is_some());
        check_anthropic_pairing(&r.body);
    }
    let shape = check_anthropic_pairing(&requests[3].body);
    assert_eq!(
        shape,
        [
            "user[text]",
            "assistant[thinking,text,list_dir:toolu_ls]",
            "user[result:toolu_ls]",
            "assistant[read_file:toolu_read]",
            "user[result:toolu_read]",
            "assistant[write_file:toolu_write]",
            "user[result:toolu_write,text]",
        ]
    );
    // The thinking block goes back with the fake's signature for turn 1.
    assert_eq!(
        requests[1].body["messages"][1]["content"][0],
        serde_json::json!({"type": "thinking",
                           "thinking": "I should look at the workspace first.",
                           "signature": "sig-1"})
    );
    let read_result = requests[2].body["messages"][4]["content"][0]["content"]
        .as_str()
        .unwrap();
    assert!(read_result.contains("     1\talpha"), "{read_result}");
    let tools: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            assert!(t["input_schema"].is_object(), "{t}");
            t["name"].as_str().unwrap()
        })
        .collect();
    for name in ["read_file", "write_file", "list_dir", "bash"] {
        assert!(tools.contains(&name), "{name} not offered: {tools:?}");
    }

    // The session keeps Anthropic's thinking part whole, so a resumed session can send it back.
    let session = env.only_session();
    assert_eq!(session["current_model"], "anthropic:claude-test");
    assert_eq!(
        session["messages"][1]["parts"][0],
        serde_json::json!({"part_kind": "thinking",
                           "content": "I should look at the workspace first.",
                           "signature": "sig-1",
                           "provider_details": {"provider": "anthropic"}})
    );
    assert_eq!(
        session["messages"][1]["provider_details"],
        serde_json::json!({"provider": "anthropic", "id": "msg_fake_1", "model": "claude-test"})
    );
}
