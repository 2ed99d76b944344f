//! End-to-end: the real binary, headless with `--yes`, against the fake provider, with the command
//! lines and tool calls that once got through (issue 20). Deletes hidden behind a variable, `xargs`
//! or `find` are refused and `.git` survives; a deny rule on `curl` refuses it however it is spelled
//! or run; a deny rule on `.env` refuses every way of reading it; an ordinary delete in the
//! workspace still runs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{FakeProvider, TestEnv, Turn};

const SECRET: &str = "sk-live-do-not-leak";

fn call(id: &str, tool: &str, args: Value) -> Turn {
    let args = args.to_string();
    Turn::tool_calls(&[(id, tool, args.as_str())])
}

fn bash(id: &str, command: &str) -> Turn {
    call(id, "bash", json!({ "command": command }))
}

/// A workspace with a `.git`, a file to keep, a `build` directory and a `.env` holding a secret.
fn seeded() -> TestEnv {
    let env = TestEnv::new().unwrap();
    let ws = env.workspace();
    std::fs::create_dir_all(ws.join(".git/refs")).unwrap();
    std::fs::write(ws.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(ws.join("keep.txt"), "kept\n").unwrap();
    std::fs::create_dir_all(ws.join("build/out")).unwrap();
    std::fs::write(ws.join(".env"), format!("API_KEY={SECRET}\n")).unwrap();
    std::fs::write(
        env.config_file(),
        json!({"permissions": {"deny": ["bash(curl:*)", "read_file(**/.env)"]}}).to_string(),
    )
    .unwrap();
    env
}

#[test]
fn yes_refuses_hidden_deletes_and_deny_rules_see_through_every_spelling() {
    let env = seeded();
    let fake = FakeProvider::start(vec![
        bash("var", r#"D=.git; rm -rf "$D""#),
        bash("xargs", "echo .git | xargs rm -rf"),
        bash("outside", "echo /x | xargs rm -rf"),
        bash("find", "find . -delete"),
        bash("env-curl", "env curl -s http://127.0.0.1:9/"),
        bash("sh-curl", "sh -c 'curl x'"),
        bash("abs-curl", "/usr/bin/curl x"),
        call(
            "run-curl",
            "run_command",
            json!({"command": "curl", "args": ["x"]}),
        ),
        call("read-space", "read_file", json!({"file_path": ".env "})),
        call(
            "grep-env",
            "grep",
            json!({"pattern": "API", "path": ".env"}),
        ),
        bash("cat-env", "cat .env"),
        bash("plain", "rm -rf build && echo cleaned"),
        Turn::text("done"),
    ]);
    let run = run(&env, &fake, &["--yes", "tidy up"]);
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);

    for id in ["var", "xargs", "outside", "find"] {
        let refused = answer(&fake, id);
        assert!(
            refused.contains("dangerous") && refused.contains("terminal"),
            "{id}: {refused}"
        );
    }
    assert!(answer(&fake, "var").contains(".git"), "the reason names it");
    for id in ["env-curl", "sh-curl", "abs-curl", "run-curl"] {
        let refused = answer(&fake, id);
        assert!(
            refused.contains("permission rule `bash(curl:*)`"),
            "{id}: {refused}"
        );
    }
    for id in ["read-space", "grep-env", "cat-env"] {
        let refused = answer(&fake, id);
        assert!(
            refused.contains("permission rule `read_file(**/.env)`"),
            "{id}: {refused}"
        );
    }
    let every_answer: String = fake
        .requests()
        .iter()
        .flat_map(|r| messages(&r.body))
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .collect();
    assert!(!every_answer.contains(SECRET), "the secret leaked");

    let plain = answer(&fake, "plain");
    assert!(
        plain.starts_with("exit code: 0") && plain.contains("cleaned"),
        "an ordinary delete in the workspace runs: {plain}"
    );
    let ws = env.workspace();
    assert!(!ws.join("build").exists());
    assert!(ws.join(".git/HEAD").exists(), ".git survives");
    assert_eq!(
        std::fs::read_to_string(ws.join("keep.txt")).unwrap(),
        "kept\n"
    );
}

#[test]
fn without_rules_a_secret_file_still_asks_and_headless_refuses() {
    let env = seeded();
    std::fs::write(env.config_file(), "{}").unwrap();
    let fake = FakeProvider::start(vec![
        bash("cat-env", "cat .env"),
        call(
            "run-cat",
            "run_command",
            json!({"command": "cat", "args": [".env"]}),
        ),
        Turn::text("done"),
    ]);
    let run = run(&env, &fake, &["--yes", "show the config"]);
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);
    for id in ["cat-env", "run-cat"] {
        let refused = answer(&fake, id);
        assert!(
            refused.contains("secret file `.env`") && refused.contains("terminal"),
            "{id}: {refused}"
        );
        assert!(!refused.contains(SECRET), "{id} leaked: {refused}");
    }
}
