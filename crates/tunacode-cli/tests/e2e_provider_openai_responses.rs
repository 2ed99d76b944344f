//! End-to-end: the real binary speaking OpenAI Responses (`--wire-api openai-responses`) to the fake
//! provider, through a multi-step tool task with reasoning in every turn.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Stdio;
use std::sync::Arc;

use common::{Run, assert_summary_task_done, bin, finish};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tunacode_testkit::{
    FakeOptions, FakeProvider, OpenAiResponses, Reply, ScriptedUsage, TestEnv, Turn,
};

/// A turn that reasons (`thought`) and then calls one tool.
fn reason_and_call(thought: &str, id: &str, tool: &str, args: &str) -> Turn {
    Turn::Reply(Reply {
        reasoning: Some(thought.into()),
        tool_calls: Turn::tool_calls(&[(id, tool, args)]).calls(),
        usage: Some(ScriptedUsage {
            prompt_tokens: 100,
            completion_tokens: 20,
            cached_tokens: 40,
        }),
        ..Reply::default()
    })
}

fn run_responses(env: &TestEnv, fake: &FakeProvider, prompt: &str) -> Run {
    let mut cmd = env.command(&bin());
    cmd.args(["run", "--model", "openai:gpt-5-test", "--base-url"])
        .arg(fake.base_url())
        .args(["--wire-api", "openai-responses", "--yes"])
        .args(["--output", "stream-json", prompt])
        .env("OPENAI_API_KEY", "test-key")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    finish(cmd.spawn().expect("spawn tunacode"), None)
}

/// The input items of a request, each as a short label (`type[detail]`).
fn shape(body: &Value) -> Vec<String> {
    body["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| match item["type"].as_str() {
            Some("reasoning") => format!("reasoning[{}]", item["id"].as_str().unwrap()),
            Some("function_call") => format!("call[{}]", item["call_id"].as_str().unwrap()),
            Some("function_call_output") => {
                format!("output[{}]", item["call_id"].as_str().unwrap())
            }
            Some(other) => other.to_string(),
            None => item["role"].as_str().unwrap().to_string(),
        })
        .collect()
}

#[test]
fn multi_step_tool_task_over_responses_carries_reasoning_forward() {
    let env = TestEnv::new().unwrap();
    std::fs::write(env.workspace().join("notes.txt"), "alpha\nbeta\n").unwrap();
    let thoughts = [
        "First see what is in the workspace.",
        "notes.txt looks relevant; read it.",
        "Two lines; write the summary.",
        "The file is written; report back.",
    ];
    let fake = FakeProvider::start_with(
        Arc::new(OpenAiResponses),
        vec![
            reason_and_call(thoughts[0], "call_ls", "list_dir", r#"{"directory": "."}"#),
            reason_and_call(
                thoughts[1],
                "call_read",
                "read_file",
                r#"{"file_path": "notes.txt"}"#,
            ),
            reason_and_call(
                thoughts[2],
                "call_write",
                "write_file",
                r#"{"file_path": "out/summary.txt", "content": "2 lines: alpha, beta\n"}"#,
            ),
            Turn::Reply(Reply {
                reasoning: Some(thoughts[3].into()),
                text: Some("TUNACODE DONE: Wrote out/summary.txt.".into()),
                ..Reply::default()
            }),
        ],
        FakeOptions::default(),
    );
    let run = run_responses(&env, &fake, "summarize notes.txt into out/summary.txt");
    assert_summary_task_done(&env, &run, 300);

    let requests = fake.requests();
    assert_eq!(requests.len(), 4);
    for r in &requests {
        assert_eq!(r.path, "/v1/responses");
        assert_eq!(r.header("authorization"), Some("Bearer test-key"));
        assert_eq!(r.body["model"], "gpt-5-test");
        assert_eq!(r.body["store"], false);
        assert_eq!(r.body["include"], json!(["reasoning.encrypted_content"]));
        assert!(
            r.body["instructions"]
                .as_str()
                .is_some_and(|s| !s.is_empty())
        );
    }
    assert_eq!(
        shape(&requests[3].body),
        [
            "user",
            "reasoning[rs_1]",
            "call[call_ls]",
            "output[call_ls]",
            "reasoning[rs_2]",
            "call[call_read]",
            "output[call_read]",
            "reasoning[rs_3]",
            "call[call_write]",
            "output[call_write]",
            "user",
        ]
    );
    // Every follow-up carries each earlier turn's reasoning item byte-exact.
    for (n, request) in requests.iter().enumerate().skip(1) {
        let reasoning: Vec<&Value> = request.body["input"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["type"] == "reasoning")
            .collect();
        assert_eq!(reasoning.len(), n, "request {n}");
        for (k, item) in reasoning.iter().enumerate() {
            assert_eq!(
                **item,
                json!({"type": "reasoning", "id": format!("rs_{}", k + 1),
                       "summary": [{"type": "summary_text", "text": thoughts[k]}],
                       "encrypted_content": format!("enc-{}", k + 1)}),
                "request {n}"
            );
        }
    }
    let read_output = requests[2].body["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "function_call_output" && i["call_id"] == "call_read")
        .and_then(|i| i["output"].as_str())
        .unwrap()
        .to_string();
    assert!(read_output.contains("     1\talpha"), "{read_output}");

    // The session keeps the reasoning with its encrypted content for later runs.
    let session = env.only_session();
    let thinking: Vec<&Value> = session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap())
        .filter(|p| p["part_kind"] == "thinking")
        .collect();
    assert_eq!(thinking.len(), 4);
    assert_eq!(thinking[0]["signature"], "enc-1");
    assert_eq!(thinking[0]["provider_details"]["id"], "rs_1");
}
