//! End-to-end: `tunacode run --model openrouter:…` through a multi-step tool task, on the Chat
//! Completions wire with OpenRouter's key and reasoning.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Stdio;

use common::{assert_summary_task_done, assert_tool_pairing, bin, finish};
use tunacode_testkit::{FakeProvider, Reply, ScriptedUsage, TestEnv, Turn};

fn step(reasoning: &str, id: &str, tool: &str, args: &str, prompt_tokens: u64) -> Turn {
    Turn::Reply(Reply {
        reasoning: Some(reasoning.into()),
        tool_calls: Turn::tool_calls(&[(id, tool, args)]).calls(),
        usage: Some(ScriptedUsage {
            prompt_tokens,
            completion_tokens: 10,
            cached_tokens: 0,
        }),
        ..Reply::default()
    })
}

#[test]
fn multi_step_task_over_openrouter() {
    let env = TestEnv::new().unwrap();
    std::fs::write(env.workspace().join("notes.txt"), "alpha\nbeta\n").unwrap();
    let fake = FakeProvider::start(vec![
        step("look first", "c1", "list_dir", r#"{"directory": "."}"#, 60),
        step(
            "read it",
            "c2",
            "read_file",
            r#"{"file_path": "notes.txt"}"#,
            80,
        ),
        step(
            "write it",
            "c3",
            "write_file",
            r#"{"file_path": "out/summary.txt", "content": "2 lines: alpha, beta\n"}"#,
            130,
        ),
        Turn::Reply(Reply {
            text: Some("TUNACODE DONE: Wrote out/summary.txt.".into()),
            usage: Some(ScriptedUsage {
                prompt_tokens: 150,
                completion_tokens: 5,
                cached_tokens: 0,
            }),
            ..Reply::default()
        }),
    ]);
    let child = env
        .command(&bin())
        .args([
            "run",
            "--model",
            "openrouter:anthropic/claude-sonnet-4.5",
            "--base-url",
            &fake.base_url(),
        ])
        .args([
            "--output",
            "stream-json",
            "--yes",
            "summarize notes.txt into out/summary.txt",
        ])
        .env("OPENROUTER_API_KEY", "sk-or-test")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let run = finish(child, None);
    assert_summary_task_done(&env, &run, 420);
    let thinking: String = run
        .of_type("thinking_delta")
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(thinking, "look firstread itwrite it");
    let requests = fake.requests();
    assert_eq!(requests.len(), 4);
    for r in &requests {
        assert_eq!(r.path, "/v1/chat/completions");
        assert_eq!(r.header("authorization"), Some("Bearer sk-or-test"));
        assert_eq!(r.body["model"], "anthropic/claude-sonnet-4.5");
        assert_tool_pairing(&r.body);
    }
}
