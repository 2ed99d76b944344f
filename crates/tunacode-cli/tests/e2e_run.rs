//! End-to-end: the real binary against the fake provider, normal runs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tunacode_testkit::{FakeProvider, Reply, ScriptedUsage, TestEnv, Turn};

fn usage(p: u64, c: u64) -> Option<ScriptedUsage> {
    Some(ScriptedUsage {
        prompt_tokens: p,
        completion_tokens: c,
        cached_tokens: 0,
    })
}

#[test]
fn multi_step_task_lists_reads_writes_and_saves_a_valid_session() {
    let env = TestEnv::new().unwrap();
    std::fs::write(env.workspace().join("notes.txt"), "alpha\nbeta\n").unwrap();
    let fake = FakeProvider::start(vec![
        Turn::Reply(Reply {
            text: Some("Let me look around.".into()),
            tool_calls: Turn::tool_calls(&[("call_ls", "list_dir", r#"{"directory": "."}"#)])
                .calls(),
            usage: usage(120, 12),
            ..Reply::default()
        }),
        Turn::tool_calls(&[("call_read", "read_file", r#"{"file_path": "notes.txt"}"#)]),
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
    ]);
    let run = run(
        &env,
        &fake,
        &["--yes", "summarize notes.txt into out/summary.txt"],
    );
    assert_summary_task_done(&env, &run, 420);
    let text: String = run
        .of_type("text_delta")
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Let me look around.Wrote out/summary.txt.");

    // What the agent sent: the prompt layout, and paired tool calls in every request.
    let requests = fake.requests();
    assert_eq!(requests.len(), 4);
    for r in &requests {
        assert_tool_pairing(&r.body);
        assert_eq!(r.body["model"], "test-model");
        assert_eq!(r.body["stream"], true);
    }
    let shape: Vec<String> = messages(&requests[3].body)
        .iter()
        .map(|m| match m["role"].as_str().unwrap() {
            "assistant" => format!(
                "assistant[{}]",
                m["tool_calls"]
                    .as_array()
                    .map(|c| c
                        .iter()
                        .map(|c| c["function"]["name"].as_str().unwrap().to_string())
                        .collect::<Vec<_>>()
                        .join(","))
                    .unwrap_or_default()
            ),
            "tool" => format!("tool[{}]", m["tool_call_id"].as_str().unwrap()),
            role => role.to_string(),
        })
        .collect();
    assert_eq!(
        shape,
        [
            "system",
            "user",
            "assistant[list_dir]",
            "tool[call_ls]",
            "assistant[read_file]",
            "tool[call_read]",
            "assistant[write_file]",
            "tool[call_write]",
            "user"
        ]
    );
    // Self-evaluation (seed 003 §7): from the third request on, in the same request, never stored.
    let self_eval = |i: usize| {
        let msgs = messages(&requests[i].body);
        let last = msgs.last().unwrap().clone();
        last["role"] == "user"
            && last["content"]
                .as_str()
                .unwrap()
                .starts_with("Reflect on your progress")
    };
    assert_eq!(
        (0..4).map(self_eval).collect::<Vec<_>>(),
        [false, false, true, true]
    );
    let read_result = messages(&requests[2].body)[5]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(read_result.contains("     1\talpha"), "{read_result}");
    let tool_names: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
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
        assert!(
            tool_names.contains(&name),
            "{name} not offered: {tool_names:?}"
        );
    }

    // The session file: seed 001's keys, paired ids, no system prompt.
    let session = env.only_session();
    let keys: Vec<&str> = session
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "version",
            "session_id",
            "project_id",
            "created_at",
            "last_modified",
            "working_directory",
            "current_model",
            "total_tokens",
            "session_total_usage",
            "thoughts",
            "messages"
        ]
    );
    assert_eq!(session["session_id"], run.result()["session_id"]);
    assert_eq!(session["current_model"], "openai:test-model");
    assert_eq!(session["session_total_usage"]["request_tokens"], 420);
    let msgs = session["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 8);
    let parts: Vec<&Value> = msgs
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap())
        .collect();
    assert!(parts.iter().all(|p| p["part_kind"] != "system-prompt"));
    let calls: Vec<&str> = parts
        .iter()
        .filter(|p| p["part_kind"] == "tool-call")
        .map(|p| p["tool_call_id"].as_str().unwrap())
        .collect();
    let returns: Vec<&str> = parts
        .iter()
        .filter(|p| p["part_kind"] == "tool-return")
        .map(|p| p["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(calls, ["call_ls", "call_read", "call_write"]);
    assert_eq!(returns, calls);
    assert_eq!(
        msgs[7]["parts"][0],
        json!({"part_kind": "text", "content": "Wrote out/summary.txt."})
    );
}

#[test]
fn completion_marker_ends_the_run_and_is_stripped() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::Reply(Reply {
            text: Some("TUNACODE DONE: Nothing to change.".into()),
            tool_calls: Turn::tool_calls(&[("c1", "list_dir", "{}")]).calls(),
            chunk_chars: 3,
            ..Reply::default()
        }),
        Turn::text("this turn must never be requested"),
    ]);
    let run = run(&env, &fake, &["check the repo"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(fake.requests().len(), 1);
    assert_eq!(run.result()["status"], "completed");
    assert_eq!(run.result()["response"], "Nothing to change.");
    assert!(
        !run.stdout.contains("TUNACODE"),
        "marker leaked: {}",
        run.stdout
    );
    assert_eq!(
        run.of_type("tool_call_finished").len(),
        1,
        "the tools of the final response still run"
    );
}

#[test]
fn plain_answer_without_tools_ends_the_run_in_text_mode() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("The answer is 42.")]);
    let mut cmd = env.command(&bin());
    let out = cmd
        .args([
            "run",
            "--model",
            "openai:test-model",
            "--base-url",
            &fake.base_url(),
            "what is it?",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "The answer is 42.\n");
}

#[test]
fn agents_md_reaches_the_model_in_the_system_prompt() {
    let env = TestEnv::new().unwrap();
    std::fs::write(
        env.workspace().join("AGENTS.md"),
        "Always run `make check` before finishing.\n",
    )
    .unwrap();
    let fake = FakeProvider::start(vec![Turn::text("ok")]);
    let run = run(&env, &fake, &["hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let system = messages(&fake.requests()[0].body)[0].clone();
    assert_eq!(system["role"], "system");
    let text = system["content"].as_str().unwrap();
    assert!(
        text.contains("You are TunaCode") && text.contains("TUNACODE DONE:"),
        "{text}"
    );
    let heading = format!(
        "# Instructions from {}\nAlways run `make check` before finishing.",
        env.workspace().join("AGENTS.md").display()
    );
    assert!(text.contains(&heading), "{text}");
    assert!(
        text.contains(
            &env.workspace()
                .canonicalize()
                .unwrap()
                .display()
                .to_string()
        )
    );
}

#[test]
fn iteration_limit_ends_with_exit_code_3() {
    let env = TestEnv::new().unwrap();
    let turns = (0..5)
        .map(|i| Turn::tool_calls(&[(&format!("c{i}"), "list_dir", "{}")]))
        .collect();
    let fake = FakeProvider::start(turns);
    let run = run(&env, &fake, &["--max-iterations", "2", "loop forever"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert_eq!(run.result()["status"], "iteration_limit");
    assert_eq!(run.result()["iterations"], 2);
    assert_eq!(fake.requests().len(), 2);
    // The progress summary (seed 004): the original query, tools by name and count, the choices.
    let limit = run.of_type("iteration_limit_reached");
    assert_eq!(limit.len(), 1);
    assert_eq!(
        limit[0]["tools_used"],
        serde_json::json!([{"name": "list_dir", "count": 2}])
    );
    assert_eq!(limit[0]["original_query"], "loop forever");
    let summary = limit[0]["summary"].as_str().unwrap();
    for part in [
        "iteration limit (2)",
        "Original request: loop forever",
        "Tools used: list_dir: 2",
        "1. Continue working",
        "2. Summarize",
        "3. Try a different approach",
    ] {
        assert!(summary.contains(part), "{part}: {summary}");
    }
    assert_eq!(run.result()["limit_summary"], summary);
    // No answer was shown, so the fallback response says what was done and what is left.
    let fallback = run.of_type("fallback_response");
    assert_eq!(fallback.len(), 1);
    let text = fallback[0]["text"].as_str().unwrap();
    assert!(
        text.contains("- list_dir (done)\n- list_dir (done)") && text.contains("What is left"),
        "{text}"
    );
    assert_eq!(run.result()["response"], text);
    // The session is saved and consistent: both calls answered.
    let session = env.only_session();
    let msgs = session["messages"].as_array().unwrap();
    assert_eq!(msgs.last().unwrap()["kind"], "request");
    assert_eq!(msgs.last().unwrap()["parts"][0]["tool_call_id"], "c1");
}

#[test]
fn empty_response_gets_a_notice_and_an_intervention() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![Turn::empty(), Turn::text("TUNACODE DONE: ok")]);
    let run = run(&env, &fake, &["fix the typo"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let notices = run.of_type("notice");
    assert_eq!(notices.len(), 1);
    assert!(
        notices[0]["message"]
            .as_str()
            .unwrap()
            .contains("empty response")
    );
    let second = &fake.requests()[1].body;
    let msgs = messages(second);
    let last = msgs.last().unwrap();
    assert_eq!(last["role"], "user");
    let text = last["content"].as_str().unwrap();
    assert!(
        text.contains("Your previous response was empty") && text.contains("fix the typo"),
        "{text}"
    );
    assert!(
        msgs.iter().all(|m| m["role"] != "assistant"),
        "the empty response is not replayed"
    );
}

#[test]
fn without_yes_and_without_a_terminal_writes_are_refused_and_the_model_is_told() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[(
            "w1",
            "write_file",
            r#"{"file_path": "x.txt", "content": "x"}"#,
        )]),
        Turn::tool_calls(&[("b1", "bash", r#"{"command": "touch y.txt"}"#)]),
        Turn::text("I could not write."),
    ]);
    let run = run(&env, &fake, &["write x.txt"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!env.workspace().join("x.txt").exists());
    assert!(!env.workspace().join("y.txt").exists());
    let statuses: Vec<&str> = run
        .of_type("tool_call_finished")
        .iter()
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["failed", "failed"]);
    let answer = messages(&fake.requests()[1].body).last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        answer.contains("not allowed") && answer.contains("--yes"),
        "{answer}"
    );
}

#[test]
fn resuming_a_session_continues_its_history() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::text("First answer."),
        Turn::text("Second answer."),
    ]);
    let first = run(&env, &fake, &["first question"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let id = first.result()["session_id"].as_str().unwrap().to_string();
    // The 8-character id the status line and `/resume` show is enough.
    let second = run(&env, &fake, &["--session", &id[..8], "second question"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(second.result()["session_id"], id.as_str());
    let roles: Vec<(String, String)> = messages(&fake.requests()[1].body)
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().into(),
                m["content"]
                    .as_str()
                    .unwrap_or("")
                    .chars()
                    .take(14)
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        roles[1..],
        [
            ("user".into(), "first question".into()),
            ("assistant".into(), "First answer.".into()),
            ("user".into(), "second questio".into())
        ]
    );
    assert_eq!(env.only_session()["messages"].as_array().unwrap().len(), 4);
}

#[test]
fn version_and_help() {
    let env = TestEnv::new().unwrap();
    let out = env.command(&bin()).arg("--version").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("tunacode {}", env!("CARGO_PKG_VERSION"))
    );
    let out = env
        .command(&bin())
        .args(["run", "--help"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--model",
        "--base-url",
        "--output",
        "--max-iterations",
        "--timeout",
        "--cwd",
        "--yes",
    ] {
        assert!(help.contains(flag), "{flag} missing from help");
    }
    let out = env
        .command(&bin())
        .args(["run", "--output", "xml", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
