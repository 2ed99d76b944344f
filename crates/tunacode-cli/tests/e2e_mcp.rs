//! End-to-end: MCP servers with the real binary, the fake provider and the in-repo fake MCP server
//! (2026-07-28 era; `--legacy` for 2025-11-25): tools offered and called, approvals, a crash at start,
//! a slow start that delays nothing, interrupts cancelling a call, the project's `.mcp.json`, `tunacode
//! mcp list|add|remove|approve`, and every server stopped at exit.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, ChildStdin};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{FakeProvider, LineReader, TestEnv, Turn, fake_mcp_binary};

const WAIT: Duration = Duration::from_secs(30);

fn send(stdin: &mut ChildStdin, line: Value) {
    writeln!(stdin, "{line}").unwrap();
    stdin.flush().unwrap();
}

/// The first line (already seen or still to come) holding every one of `parts`, parsed.
fn next_with(reader: &mut LineReader, parts: &[&str]) -> Value {
    let holds = |l: &str| parts.iter().all(|p| l.contains(p));
    let line = match reader.seen.iter().find(|l| holds(l)) {
        Some(line) => line.clone(),
        None => reader
            .wait_for(WAIT, holds)
            .unwrap_or_else(|| panic!("no line with {parts:?}; seen: {:#?}", reader.seen)),
    };
    serde_json::from_str(&line).unwrap()
}

/// The fake MCP server entry, logging to `<home>/<name>.log`.
fn fake_server(env: &TestEnv, name: &str, args: &[&str]) -> Value {
    json!({"command": fake_mcp_binary(), "args": args,
           "env": {"FAKE_MCP_LOG": log_path(env, name)}})
}

fn log_path(env: &TestEnv, name: &str) -> PathBuf {
    env.workspace()
        .parent()
        .unwrap()
        .join(format!("{name}.log"))
}

fn log(env: &TestEnv, name: &str) -> String {
    std::fs::read_to_string(log_path(env, name)).unwrap_or_default()
}

/// Waits until `name`'s log has the line `line` (the server's own record of what reached it).
fn wait_for_log(env: &TestEnv, name: &str, line: &str) {
    let deadline = std::time::Instant::now() + WAIT;
    while !log(env, name).lines().any(|l| l == line) {
        assert!(
            std::time::Instant::now() < deadline,
            "{name} never logged {line:?}: {}",
            log(env, name)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn write_config(env: &TestEnv, servers: Value) {
    std::fs::write(
        env.config_file(),
        json!({"mcpServers": servers}).to_string(),
    )
    .unwrap();
}

/// `tunacode run` reading operations from stdin, with `extra` flags.
fn spawn_streaming(env: &TestEnv, fake: &FakeProvider, extra: &[&str]) -> (Child, LineReader) {
    spawn_stream(env, fake, "openai:test-model", extra)
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn tool_answer(body: &Value, id: &str) -> String {
    messages(body)
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .unwrap_or_else(|| panic!("no answer to {id} in {body}"))
}

#[test]
fn a_ready_servers_tools_are_offered_and_called_and_a_crashed_one_is_reported() {
    let env = TestEnv::new().unwrap();
    write_config(
        &env,
        json!({"fake": fake_server(&env, "fake", &[]), "broken": fake_server(&env, "broken", &["--crash"])}),
    );
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("e1", "mcp__fake__echo", r#"{"message": "hello"}"#)]),
        Turn::tool_calls(&[("f1", "mcp__fake__fail", "{}")]),
        Turn::text("done"),
    ]);
    let (mut child, mut reader) = spawn_streaming(&env, &fake, &["--yes"]);
    let ready = next_with(&mut reader, &["\"mcp_server\"", "\"fake\"", "\"ready\""]);
    assert_eq!(ready["protocol"], "2026-07-28");
    let failed = next_with(&mut reader, &["\"mcp_server\"", "\"broken\"", "\"failed\""]);
    let error = failed["error"].as_str().unwrap();
    assert!(error.contains("cannot read its configuration"), "{error}");
    let notice = next_with(&mut reader, &["\"notice\"", "broken"]);
    assert_eq!(notice["level"], "warning");

    let mut stdin = child.stdin.take().unwrap();
    send(
        &mut stdin,
        json!({"type": "user_message", "text": "use the tools"}),
    );
    drop(stdin);
    let run = finish(child, Some(reader));
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);

    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    let offered = tool_names(&requests[0].body);
    assert!(
        offered.contains(&"mcp__fake__echo".to_string()),
        "{offered:?}"
    );
    assert!(!offered.iter().any(|t| t.starts_with("mcp__broken")));
    let echo = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "mcp__fake__echo")
        .unwrap();
    assert!(
        echo["function"]["parameters"].get("$schema").is_none(),
        "{echo}"
    );
    assert_eq!(tool_answer(&requests[1].body, "e1"), "echo: hello");
    assert!(
        tool_answer(&requests[2].body, "f1").contains("the fake tool failed on purpose"),
        "an isError result reaches the model as an error"
    );
    let finished = run.of_type("tool_call_finished");
    assert_eq!(finished[0]["tool_name"], "mcp__fake__echo");
    assert_eq!(finished[0]["status"], "completed");
}

#[test]
fn an_image_a_tool_returns_reaches_a_provider_that_takes_images() {
    let env = TestEnv::new().unwrap();
    write_config(&env, json!({"fake": fake_server(&env, "fake", &[])}));
    let fake = FakeProvider::start_with(
        std::sync::Arc::new(tunacode_testkit::AnthropicMessages),
        vec![
            Turn::tool_calls(&[("p1", "mcp__fake__picture", "{}")]),
            Turn::text("a pixel"),
        ],
        tunacode_testkit::FakeOptions::default(),
    );
    let (mut child, mut reader) = spawn_stream(&env, &fake, "anthropic:claude-test", &["--yes"]);
    next_with(&mut reader, &["\"mcp_server\"", "\"ready\""]);
    let mut stdin = child.stdin.take().unwrap();
    send(&mut stdin, json!({"type": "user_message", "text": "look"}));
    drop(stdin);
    let run = finish(child, Some(reader));
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);
    let body = &fake.requests()[1].body;
    let result = body["messages"][2]["content"][0].clone();
    assert_eq!(result["type"], "tool_result", "{body}");
    assert_eq!(
        result["content"][0],
        json!({"type": "text", "text": "a tiny picture\n[image: image/png, 70 bytes]"})
    );
    assert_eq!(result["content"][1]["type"], "image");
    assert_eq!(result["content"][1]["source"]["media_type"], "image/png");
    // The event stream and the saved session name the image; the session keeps its data.
    let finished = &run.of_type("tool_call_finished")[0];
    assert_eq!(
        finished["result"],
        "a tiny picture\n[image: image/png, 70 bytes]"
    );
    let session = env.only_session().to_string();
    assert!(session.contains("\"kind\":\"binary\""), "{session}");
}

#[test]
fn mcp_tools_ask_like_commands_unless_the_config_allows_them() {
    let env = TestEnv::new().unwrap();
    let mut allowed = fake_server(&env, "allowed", &[]);
    allowed["alwaysAllow"] = json!(["echo"]);
    write_config(
        &env,
        json!({"allowed": allowed, "plain": fake_server(&env, "plain", &[])}),
    );
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[
            ("a1", "mcp__allowed__echo", r#"{"message": "yes"}"#),
            ("p1", "mcp__plain__echo", r#"{"message": "no"}"#),
        ]),
        Turn::text("done"),
    ]);
    // Headless without --yes: nothing may run that was not allowed.
    let (mut child, mut reader) = spawn_streaming(&env, &fake, &[]);
    next_with(&mut reader, &["\"mcp_server\"", "\"allowed\"", "\"ready\""]);
    next_with(&mut reader, &["\"mcp_server\"", "\"plain\"", "\"ready\""]);
    let mut stdin = child.stdin.take().unwrap();
    send(&mut stdin, json!({"type": "user_message", "text": "go"}));
    drop(stdin);
    let run = finish(child, Some(reader));
    let second = &fake.requests()[1].body;
    assert_eq!(tool_answer(second, "a1"), "echo: yes");
    assert!(
        tool_answer(second, "p1").contains("non-interactive"),
        "{second}"
    );
    assert!(!log(&env, "plain").contains("call echo"));
    assert_eq!(run.result()["status"], "answered");
}

#[test]
fn a_slow_server_delays_nothing_and_every_server_is_stopped_at_exit() {
    let env = TestEnv::new().unwrap();
    write_config(
        &env,
        json!({"slow": fake_server(&env, "slow", &["--delay-ms", "5000"]),
               "quick": fake_server(&env, "quick", &[])}),
    );
    let fake = FakeProvider::start(vec![Turn::text("answered at once")]);
    let run = run(&env, &fake, &["hello"]);
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);
    // The request went out and was answered while the slow server was still starting: it never got
    // as far as the protocol, and its tools were never offered.
    let slow_states: Vec<&str> = run
        .of_type("mcp_server")
        .iter()
        .filter(|e| e["name"] == "slow")
        .map(|e| e["state"].as_str().unwrap())
        .collect();
    assert!(!slow_states.contains(&"ready"), "{slow_states:?}");
    assert!(
        !log(&env, "slow").contains("discover"),
        "{}",
        log(&env, "slow")
    );
    // Both processes end with the binary (a kill is delivered, and the orphan reaped, a moment
    // later; an unkilled slow server would sleep 5 s before it even reads its closed stdin).
    for name in ["slow", "quick"] {
        let text = log(&env, name);
        let pid = text
            .lines()
            .find_map(|l| l.strip_prefix("pid "))
            .expect("started");
        let deadline = std::time::Instant::now() + Duration::from_secs(3);
        while running(pid) {
            assert!(
                std::time::Instant::now() < deadline,
                "{name} ({pid}) still runs"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Whether the process `pid` exists and is not a zombie.
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'))
    })
}

#[test]
fn an_interrupt_cancels_a_running_mcp_call_on_the_server() {
    let env = TestEnv::new().unwrap();
    write_config(&env, json!({"s": fake_server(&env, "s", &["--legacy"])}));
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("c1", "mcp__s__slow", "{}")]),
        Turn::text("after"),
    ]);
    let (mut child, mut reader) = spawn_streaming(&env, &fake, &["--yes"]);
    next_with(&mut reader, &["\"mcp_server\"", "\"ready\""]);
    let mut stdin = child.stdin.take().unwrap();
    send(
        &mut stdin,
        json!({"type": "user_message", "text": "run slow"}),
    );
    wait_for_log(&env, "s", "call slow");
    send(&mut stdin, json!({"type": "interrupt"}));
    let finished = next_with(&mut reader, &["\"tool_call_finished\"", "mcp__s__slow"]);
    assert_eq!(finished["status"], "cancelled");
    // The server hears of the cancellation while it still runs (before stdin closes and the
    // runtime stops it).
    wait_for_log(&env, "s", "cancelled slow");
    drop(stdin);
    let run = finish(child, Some(reader));
    assert_eq!(run.result()["status"], "aborted", "{}", run.stdout);
}

#[test]
fn a_projects_mcp_file_waits_for_approval() {
    let env = TestEnv::new().unwrap();
    let project = json!({"mcpServers": {"proj": fake_server(&env, "proj", &[])}});
    std::fs::write(env.workspace().join(".mcp.json"), project.to_string()).unwrap();
    let fake = FakeProvider::start(vec![Turn::text("one"), Turn::text("two")]);

    let before = run(&env, &fake, &["hi"]);
    let notice = before
        .of_type("notice")
        .into_iter()
        .find(|n| n["message"].as_str().unwrap().contains(".mcp.json"))
        .expect("the pending file is said");
    assert!(notice["message"].as_str().unwrap().contains("proj"));
    assert!(log(&env, "proj").is_empty(), "not started before approval");

    let out = env
        .command(&bin())
        .args(["mcp", "approve"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (mut child, mut reader) = spawn_streaming(&env, &fake, &[]);
    next_with(&mut reader, &["\"mcp_server\"", "\"proj\"", "\"ready\""]);
    drop(child.stdin.take());
    finish(child, Some(reader));

    // A changed file needs approving again.
    let changed = json!({"mcpServers": {"proj": fake_server(&env, "proj", &["--legacy"])}});
    std::fs::write(env.workspace().join(".mcp.json"), changed.to_string()).unwrap();
    let after = run(&env, &fake, &["again"]);
    assert!(
        after
            .of_type("mcp_server")
            .iter()
            .all(|e| e["name"] != "proj")
    );
}

#[test]
fn mcp_list_add_and_remove_manage_the_config() {
    let env = TestEnv::new().unwrap();
    std::fs::write(
        env.config_file(),
        r#"{"default_model": "openai:x", "keep": [1]}"#,
    )
    .unwrap();
    let mcp = |args: &[&str]| env.command(&bin()).arg("mcp").args(args).output().unwrap();
    let fake_bin = fake_mcp_binary().display().to_string();
    let added = mcp(&["add", "fake", "--env", "A=b", "--", &fake_bin, "--legacy"]);
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let crash = mcp(&["add", "broken", "--", &fake_bin, "--crash"]);
    assert!(crash.status.success());
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(env.config_file()).unwrap()).unwrap();
    assert_eq!(config["keep"], json!([1]));
    assert_eq!(
        config["mcpServers"]["fake"],
        json!({"command": fake_bin, "args": ["--legacy"], "env": {"A": "b"}})
    );

    let listed = mcp(&["list"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(text.contains("fake  ready (2025-11-25, 6 tools)"), "{text}");
    assert!(text.contains("mcp__fake__echo"), "{text}");
    assert!(text.contains("broken  failed: exited at start"), "{text}");
    let json_out = mcp(&["list", "--json"]);
    let parsed: Value = serde_json::from_slice(&json_out.stdout).unwrap();
    let states: Vec<(&str, &str)> = parsed["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["state"].as_str().unwrap()))
        .collect();
    assert_eq!(states, [("broken", "failed"), ("fake", "ready")]);

    assert!(mcp(&["remove", "broken"]).status.success());
    let missing = mcp(&["remove", "broken"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no MCP server `broken`"));

    std::fs::write(env.config_file(), "{\"mcpServers\": ").unwrap();
    let refused = mcp(&["add", "x", "--", "y"]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("tunacode.json"));
    assert_eq!(
        std::fs::read_to_string(env.config_file()).unwrap(),
        "{\"mcpServers\": "
    );
}

#[test]
fn servers_get_the_agents_environment_without_its_secrets() {
    let env = TestEnv::new().unwrap();
    let seen = env.workspace().join("server-env.txt");
    let script = format!(
        "env > {}; exec {}",
        seen.display(),
        fake_mcp_binary().display()
    );
    write_config(
        &env,
        json!({"wrapped": {"command": "sh", "args": ["-c", script],
                           "env": {"HANDED_TOKEN": "${PROJECT_TOKEN}"}}}),
    );
    let out = env
        .command(&bin())
        .args(["mcp", "list", "--json"])
        .env("PROJECT_TOKEN", "given-on-purpose")
        .env("SOME_API_KEY", "must-not-leak")
        .env("PLAIN_SETTING", "visible")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen = std::fs::read_to_string(&seen).unwrap();
    assert!(seen.contains("PLAIN_SETTING=visible"), "{seen}");
    assert!(
        seen.contains("HANDED_TOKEN=given-on-purpose"),
        "named in its env: {seen}"
    );
    assert!(!seen.contains("must-not-leak"), "{seen}");
    assert!(
        !seen.contains("PROJECT_TOKEN="),
        "only under the name it was handed: {seen}"
    );
}
