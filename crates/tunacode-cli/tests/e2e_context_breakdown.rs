//! End-to-end: `/context` as a breakdown of the next request. The parts (system prompt, instruction
//! files, skills, tools, conversation, attachments) add up to the total, and the total is the size of
//! the request the fake provider then receives (±5%); `tunacode context` prints the same figures.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{FakeProvider, LineReader, TestEnv, Turn, wait_with_timeout};

const WAIT: Duration = Duration::from_secs(30);

fn project(env: &TestEnv) {
    let ws = env.workspace();
    std::fs::write(
        ws.join("AGENTS.md"),
        "Always run the tests before saying done.\n".repeat(20),
    )
    .unwrap();
    let skill = ws.join(".tunacode/skills/release");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: release\ndescription: Cut a release of this project\n---\nSteps.\n",
    )
    .unwrap();
    std::fs::write(ws.join("notes.md"), "A note worth attaching.\n".repeat(200)).unwrap();
}

#[test]
fn the_breakdown_adds_up_and_matches_the_request_the_provider_receives() {
    let env = TestEnv::new().unwrap();
    project(&env);
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("l1", "list_dir", r#"{"directory": "."}"#)]),
        Turn::text("Read them."),
        Turn::text("Again."),
    ]);
    write_local_config(
        &env,
        &fake,
        json!({"models": {"local:test-model": {"context_window": 64000}}}),
    );
    let mut child = env
        .command(&bin())
        .args([
            "run",
            "--input-format",
            "stream-json",
            "--output",
            "stream-json",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = LineReader::new(child.stdout.take().unwrap());
    let mut send = |line: Value| writeln!(stdin, "{line}").unwrap();
    send(json!({"type": "user_message", "text": "look at @notes.md"}));
    out.wait_for(WAIT, |l| l.contains("\"type\":\"result\""))
        .unwrap();
    send(json!({"type": "context"}));
    let line = out
        .wait_for(WAIT, |l| l.contains("\"type\":\"context\""))
        .unwrap();
    send(json!({"type": "user_message", "text": "again"}));
    out.wait_for(WAIT, |l| l.contains("\"response\":\"Again.\""))
        .unwrap();
    drop(stdin);
    wait_with_timeout(&mut child, WAIT).unwrap();

    let breakdown: Value = serde_json::from_str(&line).unwrap();
    let sections = breakdown["sections"].as_array().unwrap();
    let tokens = |name: &str| {
        sections
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no {name}: {breakdown}"))["tokens"]
            .as_u64()
            .unwrap()
    };
    for part in [
        "system prompt",
        "instruction files",
        "skills",
        "built-in tools",
        "conversation",
        "attachments",
    ] {
        assert!(tokens(part) > 0, "{part} is empty: {breakdown}");
    }
    assert_eq!(tokens("MCP tools"), 0);
    let sum: u64 = sections.iter().map(|s| s["tokens"].as_u64().unwrap()).sum();
    let total = breakdown["total"].as_u64().unwrap();
    assert_eq!(sum, total);
    assert!(
        tokens("attachments") > 1000,
        "notes.md is ~4,800 characters: {breakdown}"
    );
    // The next request is this one plus "again": within 5% of it.
    let sent = fake.requests().last().unwrap().raw_body.chars().count() as f64 / 4.0;
    let off = (total as f64 - sent).abs() / sent;
    assert!(
        off < 0.05,
        "breakdown {total} vs sent {sent:.0} ({:.1}% off)",
        off * 100.0
    );
    assert_eq!(breakdown["window"], 64000);
    assert_eq!(breakdown["counter"], "estimate");
}

#[test]
fn tunacode_context_prints_the_same_breakdown_for_a_new_or_a_saved_session() {
    let env = TestEnv::new().unwrap();
    project(&env);
    let fake = FakeProvider::start(vec![Turn::text("Hello.")]);
    write_local_config(&env, &fake, json!({}));
    let context = |args: &[&str]| {
        let out = env
            .command(&bin())
            .arg("context")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let fresh: Value = serde_json::from_str(&context(&["--json"])).unwrap();
    let conversation = |b: &Value| {
        b["sections"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "conversation")
            .unwrap()["tokens"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(conversation(&fresh), 0);
    assert_eq!(fresh["model"], "local:test-model");
    let run = env
        .command(&bin())
        .args(["run", "say hello at length"])
        .output()
        .unwrap();
    assert!(run.status.success());
    let saved: Value = serde_json::from_str(&context(&["--json", "--continue"])).unwrap();
    assert!(conversation(&saved) > 0, "{saved}");
    let text = context(&[]);
    assert!(
        text.contains("instruction files") && text.contains("is unknown"),
        "{text}"
    );
}
