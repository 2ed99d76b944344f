//! End-to-end: the rest of the seed's loop — no-progress alert, todos, plan mode, connection reuse,
//! `@file` mentions and `run_command` — with the real binary against the fake provider.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use pretty_assertions::assert_eq;
use serde_json::Value;
use tunacode_testkit::{FakeProvider, TestEnv, Turn};

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The last user message, not counting the self-evaluation prompt that rides along from the third
/// request on.
fn last_user_text(body: &Value) -> String {
    let msgs = messages(body);
    let last = msgs
        .iter()
        .rev()
        .filter(|m| m["role"] == "user")
        .find(|m| {
            !m["content"]
                .as_str()
                .unwrap_or("")
                .starts_with("Reflect on your progress")
        })
        .unwrap();
    last["content"].as_str().unwrap().to_string()
}

fn last_tool_text(body: &Value) -> String {
    let msgs = messages(body);
    msgs.iter().rev().find(|m| m["role"] == "tool").unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn three_tool_less_iterations_bring_the_no_progress_alert() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::empty(),
        Turn::empty(),
        Turn::empty(),
        Turn::text("TUNACODE DONE: ok"),
    ]);
    let run = run(&env, &fake, &["rename the helper"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let requests = fake.requests();
    assert_eq!(requests.len(), 4);
    assert!(last_user_text(&requests[1].body).contains("Your previous response was empty"));
    let alert = last_user_text(&requests[3].body);
    assert!(
        alert.starts_with("ALERT: No tools executed for 3 iterations."),
        "{alert}"
    );
    assert!(
        alert.contains("Current iteration: 3/40") && alert.contains("Task: rename the helper"),
        "{alert}"
    );
    let notices: Vec<String> = run
        .of_type("notice")
        .iter()
        .map(|n| n["message"].as_str().unwrap().to_string())
        .collect();
    assert!(
        notices
            .iter()
            .any(|n| n.contains("No tool calls for 3 iterations")),
        "{notices:?}"
    );
}

#[test]
fn todos_reach_the_newest_turn_of_every_request_and_are_saved() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[(
            "t1",
            "todo",
            r#"{"action": "add", "items": ["read the parser", "fix the bug"]}"#,
        )]),
        Turn::tool_calls(&[(
            "t2",
            "todo",
            r#"{"action": "update", "id": 1, "status": "completed"}"#,
        )]),
        Turn::text("TUNACODE DONE: planned"),
    ]);
    let run = run(&env, &fake, &["plan the fix"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let body = |i: usize| fake.requests()[i].body.clone();
    let system = |i: usize| messages(&body(i))[0]["content"].to_string();
    // The list travels on the newest turn only, so the system prompt (and the cache) never changes.
    let newest = |i: usize| messages(&body(i)).last().unwrap()["content"].to_string();
    assert_eq!(system(0), system(2));
    assert!(!system(2).contains("Current todos"));
    assert!(!newest(0).contains("# Current todos"));
    assert!(
        newest(1).contains("# Current todos\\n[ ] 1. read the parser\\n[ ] 2. fix the bug"),
        "{}",
        newest(1)
    );
    assert!(
        newest(2).contains("# Current todos\\n[x] 1. read the parser\\n[ ] 2. fix the bug"),
        "{}",
        newest(2)
    );
    // An earlier turn is sent as it was, without the note it carried when it was the newest.
    let earlier = messages(&body(2));
    assert!(
        !earlier[..earlier.len() - 1]
            .iter()
            .any(|m| m.to_string().contains("Current todos"))
    );
    let updates = run.of_type("todos_updated");
    assert_eq!(updates.len(), 2);
    assert_eq!(updates[1]["items"][0]["status"], "completed");
    let session = env.only_session();
    assert_eq!(session["todos"][1]["content"], "fix the bug");
}

#[test]
fn plan_mode_refuses_writes_until_the_plan_is_approved_and_saved() {
    let env = TestEnv::new().unwrap();
    let plan = "# Plan\\n1. Create hello.txt\\n2. Verify it";
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[(
            "w0",
            "write_file",
            r#"{"file_path": "early.txt", "content": "no"}"#,
        )]),
        Turn::tool_calls(&[("p1", "present_plan", &format!(r#"{{"plan": "{plan}"}}"#))]),
        Turn::tool_calls(&[(
            "w1",
            "write_file",
            r#"{"file_path": "hello.txt", "content": "hi"}"#,
        )]),
        Turn::text("TUNACODE DONE: done as planned"),
    ]);
    let run = run(&env, &fake, &["--plan", "--yes", "create hello.txt"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let requests = fake.requests();
    // The same tools throughout (plan mode refuses changes, it does not hide tools), and plan mode
    // said on the newest turn, not in the system prompt: the cached prefix survives the switch.
    let first_tools = tool_names(&requests[0].body);
    assert_eq!(first_tools, tool_names(&requests[2].body));
    for tool in ["write_file", "present_plan", "exit_plan_mode"] {
        assert!(first_tools.contains(&tool.to_string()), "{first_tools:?}");
    }
    let system = |i: usize| messages(&requests[i].body)[0]["content"].to_string();
    let newest = |i: usize| messages(&requests[i].body).last().unwrap().to_string();
    assert_eq!(system(0), system(2));
    assert!(!system(0).contains("# Plan mode"));
    assert!(newest(0).contains("# Plan mode"), "{}", newest(0));
    assert!(
        !newest(2).contains("# Plan mode"),
        "plan mode is over: {}",
        newest(2)
    );
    assert!(
        !env.workspace().join("early.txt").exists(),
        "a write ran in plan mode"
    );
    let refusal = last_tool_text(&requests[1].body);
    assert!(
        refusal.starts_with("Refused: plan mode is read-only"),
        "{refusal}"
    );
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("PLAN.md")).unwrap(),
        "# Plan\n1. Create hello.txt\n2. Verify it\n"
    );
    let approval = last_tool_text(&requests[2].body);
    assert!(
        approval.contains("approved the plan") && approval.contains("PLAN.md"),
        "{approval}"
    );
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("hello.txt")).unwrap(),
        "hi"
    );
    assert_eq!(run.of_type("plan_presented").len(), 1);
    let modes: Vec<bool> = run
        .of_type("plan_mode_changed")
        .iter()
        .map(|e| e["active"].as_bool().unwrap())
        .collect();
    assert_eq!(modes, [true, false]);
}

#[test]
fn a_headless_plan_without_approval_ends_the_run_with_the_plan() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("p1", "present_plan", r##"{"plan": "# Plan\n- change x"}"##)]),
        Turn::text("must not be requested"),
    ]);
    let run = run(&env, &fake, &["--plan", "design the change"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.result()["status"], "plan_presented");
    assert_eq!(run.result()["response"], "# Plan\n- change x");
    assert_eq!(fake.requests().len(), 1);
    assert!(!env.workspace().join("PLAN.md").exists());
    assert_eq!(
        env.only_session()["plan_mode"],
        true,
        "still planning when resumed"
    );
}

#[test]
fn one_tcp_connection_serves_a_whole_multi_turn_run() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[(
            "r1",
            "run_command",
            r#"{"command": "echo", "args": ["hi there"]}"#,
        )]),
        Turn::tool_calls(&[("l1", "list_dir", "{}")]),
        Turn::tool_calls(&[("g1", "glob", r#"{"pattern": "*"}"#)]),
        Turn::text("TUNACODE DONE: done"),
    ]);
    let run = run(&env, &fake, &["--yes", "look around"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let requests = fake.requests();
    assert_eq!(requests.len(), 4);
    let connections: Vec<u64> = requests.iter().map(|r| r.connection_id).collect();
    assert_eq!(
        connections, [connections[0]; 4],
        "every request on one kept-alive connection"
    );
    let output = last_tool_text(&requests[1].body);
    assert_eq!(output, "$ echo 'hi there'\nexit code: 0\nstdout:\nhi there");
}

#[test]
fn file_mentions_in_a_headless_prompt_are_attached() {
    let env = TestEnv::new().unwrap();
    std::fs::create_dir(env.workspace().join("src")).unwrap();
    std::fs::write(
        env.workspace().join("src/main.rs"),
        "fn main() { println!(\"hi\"); }\n",
    )
    .unwrap();
    let fake = FakeProvider::start(vec![Turn::text("It prints hi.")]);
    let run = run(&env, &fake, &["explain @src/main.rs please"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let prompt = last_user_text(&fake.requests()[0].body);
    assert_eq!(
        prompt,
        "explain @src/main.rs please\n\n<file path=\"src/main.rs\">\nfn main() { println!(\"hi\"); }\n</file>"
    );
}
