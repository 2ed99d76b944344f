//! End-to-end: the real binary against the fake provider speaking the native Gemini API
//! (`google:` models, `x-goog-api-key`, thought signatures sent back on their parts).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Stdio;
use std::sync::Arc;

use common::*;
use pretty_assertions::assert_eq;
use serde_json::Value;
use tunacode_testkit::{FakeOptions, FakeProvider, Gemini, Reply, ScriptedUsage, TestEnv, Turn};

fn usage(p: u64, c: u64) -> Option<ScriptedUsage> {
    Some(ScriptedUsage {
        prompt_tokens: p,
        completion_tokens: c,
        cached_tokens: 0,
    })
}

/// Runs `tunacode run --model google:gemini-test` against `fake` with the key in `GEMINI_API_KEY`.
fn run_gemini(env: &TestEnv, fake: &FakeProvider, prompt: &str) -> Run {
    let mut cmd = env.command(&bin());
    cmd.args(["run", "--model", "google:gemini-test", "--base-url"])
        .arg(fake.base_url())
        .args(["--yes", "--output", "stream-json", prompt])
        .env("GEMINI_API_KEY", "test-key")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    finish(cmd.spawn().expect("spawn tunacode"), None)
}

/// Each content as `role:part,part` (`text`, `call:name`, `answer:name`).
fn shape(contents: &Value) -> Vec<String> {
    contents
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let parts: Vec<String> = c["parts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    if let Some(call) = p.get("functionCall") {
                        format!("call:{}", call["name"].as_str().unwrap())
                    } else if let Some(answer) = p.get("functionResponse") {
                        format!("answer:{}", answer["name"].as_str().unwrap())
                    } else {
                        "text".to_string()
                    }
                })
                .collect();
            format!("{}:{}", c["role"].as_str().unwrap(), parts.join(","))
        })
        .collect()
}

/// Every `(id, thoughtSignature)` of the function calls in a request, in order.
fn signed_calls(body: &Value) -> Vec<(String, Option<String>)> {
    body["contents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["parts"].as_array().unwrap())
        .filter_map(|p| {
            let call = p.get("functionCall")?;
            Some((
                call["id"].as_str().unwrap().to_string(),
                p["thoughtSignature"].as_str().map(str::to_string),
            ))
        })
        .collect()
}

/// Every call is answered, by id and name, in the next content, which is a `user` one.
fn assert_gemini_pairing(body: &Value) {
    let contents = body["contents"].as_array().unwrap();
    for (i, content) in contents.iter().enumerate() {
        let calls: Vec<(&str, &str)> = content["parts"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p.get("functionCall"))
            .map(|c| (c["id"].as_str().unwrap(), c["name"].as_str().unwrap()))
            .collect();
        if calls.is_empty() {
            continue;
        }
        let next = &contents[i + 1];
        assert_eq!(next["role"], "user", "{body}");
        let answers: Vec<(&str, &str)> = next["parts"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p.get("functionResponse"))
            .map(|r| (r["id"].as_str().unwrap(), r["name"].as_str().unwrap()))
            .collect();
        assert_eq!(answers, calls, "{body}");
    }
}

#[test]
fn multi_step_task_over_the_native_gemini_api() {
    let env = TestEnv::new().unwrap();
    std::fs::write(env.workspace().join("notes.txt"), "alpha\nbeta\n").unwrap();
    let fake = FakeProvider::start_with(
        Arc::new(Gemini),
        vec![
            Turn::Reply(Reply {
                reasoning: Some("Look first.".into()),
                text: Some("Let me look around.".into()),
                tool_calls: Turn::tool_calls(&[("call_ls", "list_dir", r#"{"directory": "."}"#)])
                    .calls(),
                usage: usage(120, 12),
                ..Reply::default()
            }),
            // No id: Gemini may leave it out; the client makes one.
            Turn::tool_calls(&[("", "read_file", r#"{"file_path": "notes.txt"}"#)]),
            Turn::tool_calls(&[(
                "call_write",
                "write_file",
                r#"{"file_path": "out/summary.txt", "content": "2 lines: alpha, beta\n"}"#,
            )]),
            Turn::Reply(Reply {
                text: Some("TUNACODE DONE: Wrote out/summary.txt.".into()),
                usage: usage(300, 8),
                ..Reply::default()
            }),
        ],
        FakeOptions::default(),
    );
    let run = run_gemini(&env, &fake, "summarize notes.txt into out/summary.txt");
    assert_summary_task_done(&env, &run, 420);

    let requests = fake.requests();
    assert_eq!(requests.len(), 4);
    for r in &requests {
        assert_eq!(
            r.path,
            "/v1/models/gemini-test:streamGenerateContent?alt=sse"
        );
        assert_eq!(r.header("x-goog-api-key"), Some("test-key"));
        assert_eq!(r.header("authorization"), None);
        assert_gemini_pairing(&r.body);
        let system = r.body["systemInstruction"]["parts"][0]["text"]
            .as_str()
            .unwrap();
        assert!(system.contains("TUNACODE DONE:"), "{system}");
    }
    // Each follow-up carries the signature of every earlier call, on that call's part, byte-exact.
    for (n, r) in requests.iter().enumerate() {
        let calls = signed_calls(&r.body);
        assert_eq!(calls.len(), n, "{}", r.body);
        for (turn, (_, signature)) in calls.iter().enumerate() {
            assert_eq!(
                signature.as_deref(),
                Some(Gemini::thought_signature(turn + 1, 0).as_str()),
                "request {n}"
            );
        }
    }
    // From the third request on, the self-evaluation prompt rides along as text (not stored).
    let last = &requests[3].body;
    assert_eq!(
        shape(&last["contents"]),
        [
            "user:text",
            "model:text,call:list_dir",
            "user:answer:list_dir",
            "model:call:read_file",
            "user:answer:read_file",
            "model:call:write_file",
            "user:answer:write_file,text"
        ]
    );
    let ids: Vec<String> = signed_calls(last).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids[0], "call_ls");
    assert!(ids[1].starts_with("call_0_"), "invented: {ids:?}");
    assert_eq!(ids[2], "call_write");
    let read_result = last["contents"][4]["parts"][0]["functionResponse"]["response"]["result"]
        .as_str()
        .unwrap();
    assert!(read_result.contains("     1\talpha"), "{read_result}");

    // Tools are declared once, with schemas Gemini accepts.
    let declarations = requests[0].body["tools"][0]["functionDeclarations"]
        .as_array()
        .unwrap();
    let names: Vec<&str> = declarations
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    for name in [
        "read_file",
        "write_file",
        "update_file",
        "bash",
        "grep",
        "glob",
        "list_dir",
    ] {
        assert!(names.contains(&name), "{name} not offered: {names:?}");
    }
    let tools_text = requests[0].body["tools"].to_string();
    assert!(
        !tools_text.contains("additionalProperties") && !tools_text.contains("$schema"),
        "{tools_text}"
    );

    // The session keeps the signatures, so a resumed session can send them back.
    let session = env.only_session();
    assert_eq!(session["current_model"], "google:gemini-test");
    let signatures: Vec<&str> = session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap())
        .filter(|p| p["part_kind"] == "tool-call")
        .map(|p| p["provider_details"]["thought_signature"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = (1..=3).map(|t| Gemini::thought_signature(t, 0)).collect();
    assert_eq!(signatures, expected);
}
