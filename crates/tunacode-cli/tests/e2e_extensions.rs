//! End-to-end: project knowledge and extensions with the real binary and the fake provider: nested
//! instruction files reach the request in order.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use tunacode_testkit::{FakeProvider, TestEnv, Turn};

fn write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn instruction_files_from_the_user_and_every_level_reach_the_model_in_order() {
    let env = TestEnv::new().unwrap();
    let ws = env.workspace();
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    let user_file = env
        .config_file()
        .parent()
        .unwrap()
        .join("tunacode/AGENTS.md");
    write(&user_file, "USER-RULE: answer briefly");
    write(&ws.join("AGENTS.md"), "ROOT-RULE: run cargo test");
    write(&ws.join("crates/CLAUDE.md"), "CRATES-RULE: from CLAUDE.md");
    write(
        &ws.join("crates/app/AGENTS.md"),
        "APP-RULE: this crate is the app",
    );
    let fake = FakeProvider::start(vec![Turn::text("ok")]);
    let cwd = ws.join("crates/app");
    let run = run(&env, &fake, &["--cwd", cwd.to_str().unwrap(), "hi"]);
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);
    let system = messages(&fake.requests()[0].body)[0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    let at = |needle: &str| {
        system
            .find(needle)
            .unwrap_or_else(|| panic!("{needle} missing: {system}"))
    };
    assert!(at("USER-RULE") < at("ROOT-RULE"));
    assert!(at("ROOT-RULE") < at("CRATES-RULE"));
    assert!(at("CRATES-RULE") < at("APP-RULE"));
    assert!(system.contains(&format!(
        "# Instructions from {}",
        cwd.join("AGENTS.md").display()
    )));

    let out = env
        .command(&bin())
        .args(["context", "--cwd", cwd.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("crates/CLAUDE.md") && text.contains("tokens"),
        "{text}"
    );
    assert_eq!(
        // One line per file (the skills' line follows them).
        text.lines().filter(|l| l.starts_with("  /")).count(),
        4,
        "{text}"
    );
}

const PATCH: &str = "*** Begin Patch
*** Add File: src/added.rs
+pub fn added() {}
*** Update File: src/lib.rs
@@ fn one() {
-    1
+    10
@@
 fn two() {
-    2
+    20
 }
*** Delete File: old.txt
*** End Patch";

fn patch_call(id: &str, patch: &str) -> Turn {
    let args = serde_json::json!({"input": patch}).to_string();
    Turn::tool_calls(&[(id, "apply_patch", args.as_str())])
}

#[test]
fn apply_patch_changes_three_files_at_once_or_nothing() {
    let env = TestEnv::new().unwrap();
    let ws = env.workspace();
    write(
        &ws.join("src/lib.rs"),
        "fn one() {\n    1\n}\nfn two() {\n    2\n}\n",
    );
    write(&ws.join("old.txt"), "bye\n");
    let bad = PATCH.replace("-    2\n+    20", "-    3\n+    30");
    let fake = FakeProvider::start(vec![
        patch_call("bad", &bad),
        patch_call("good", PATCH),
        Turn::text("patched"),
    ]);
    let run = run(&env, &fake, &["--yes", "patch it"]);
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);
    let answers: Vec<String> = fake
        .requests()
        .iter()
        .flat_map(|r| messages(&r.body))
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect();
    assert!(
        answers[0].contains("in `src/lib.rs`, the hunk whose first line is `fn two() {`"),
        "{answers:?}"
    );
    assert!(
        answers
            .iter()
            .any(|a| a.contains("A src/added.rs\nM src/lib.rs\nD old.txt")),
        "{answers:?}"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("src/lib.rs")).unwrap(),
        "fn one() {\n    10\n}\nfn two() {\n    20\n}\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("src/added.rs")).unwrap(),
        "pub fn added() {}\n"
    );
    assert!(!ws.join("old.txt").exists());

    // A config switch hides it.
    std::fs::write(
        env.config_file(),
        r#"{"settings": {"disabled_tools": ["apply_patch"]}}"#,
    )
    .unwrap();
    let fake = FakeProvider::start(vec![Turn::text("ok")]);
    run_ok(&env, &fake);
    let offered = fake.requests()[0].body["tools"].to_string();
    assert!(
        !offered.contains("apply_patch") && offered.contains("update_file"),
        "{offered}"
    );
}

fn run_ok(env: &TestEnv, fake: &FakeProvider) {
    let run = run(env, fake, &["hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn completions_and_the_man_page_come_from_the_real_flags() {
    let env = TestEnv::new().unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let out = env
            .command(&bin())
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8_lossy(&out.stdout);
        for word in ["tunacode", "undo", "mcp", "sandbox"] {
            assert!(script.contains(word), "{shell} lacks {word}");
        }
    }
    let man = env.command(&bin()).arg("man").output().unwrap();
    let page = String::from_utf8_lossy(&man.stdout);
    assert!(
        page.starts_with(".ie") && page.contains(".TH tunacode 1"),
        "{page}"
    );
    assert!(page.contains("sandbox"), "{page}");
    let bad = env
        .command(&bin())
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn a_custom_command_expands_headless_with_its_arguments_files_and_model() {
    let env = TestEnv::new().unwrap();
    let ws = env.workspace();
    write(&ws.join("src/lib.rs"), "pub fn answer() -> u32 { 42 }\n");
    write(
        &ws.join(".tunacode/commands/review.md"),
        "---\ndescription: Review one file\nmodel: local:review-model\n---\nReview @$1 and look for $2. Everything: $ARGUMENTS",
    );
    let user = env
        .config_file()
        .parent()
        .unwrap()
        .join("tunacode/commands");
    write(
        &user.join("review.md"),
        "the user's review, shadowed by the project's",
    );
    write(&user.join("hello.md"), "Say hello to $1.");
    let fake = FakeProvider::start(vec![Turn::text("reviewed"), Turn::text("hi")]);
    write_local_config(&env, &fake, serde_json::json!({}));
    let run_prompt = |prompt: &str| {
        let child = env
            .command(&bin())
            .args(["run", "--output", "stream-json", prompt])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        finish(child, None)
    };
    let run1 = run_prompt("/review src/lib.rs \"off-by-one errors\"");
    assert_eq!(run1.result()["status"], "answered", "{}", run1.stderr);
    let body = &fake.requests()[0].body;
    assert_eq!(body["model"], "review-model", "the command's own model");
    let user_text = messages(body).last().unwrap()["content"].to_string();
    assert!(
        user_text.contains("Review @src/lib.rs and look for off-by-one errors."),
        "{user_text}"
    );
    assert!(
        user_text.contains("Everything: src/lib.rs \\\"off-by-one errors\\\""),
        "{user_text}"
    );
    assert!(
        user_text.contains("pub fn answer()"),
        "the @file is attached: {user_text}"
    );

    let run2 = run_prompt("/hello world");
    assert_eq!(run2.result()["status"], "answered");
    let body = &fake.requests()[1].body;
    assert_eq!(body["model"], "test-model");
    assert!(
        messages(body).last().unwrap()["content"]
            .to_string()
            .contains("Say hello to world.")
    );
}

#[test]
fn a_skill_is_listed_in_the_prompt_and_its_body_arrives_only_when_loaded() {
    let env = TestEnv::new().unwrap();
    let ws = env.workspace();
    write(
        &ws.join(".tunacode/skills/release/SKILL.md"),
        "---\nname: release\ndescription: How to cut a release of this project\n---\nSECRET-STEPS: bump, tag, push.",
    );
    write(&ws.join(".tunacode/skills/release/notes.md"), "template");
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("s1", "skill", r#"{"name": "release"}"#)]),
        Turn::text("released"),
    ]);
    let run = run(&env, &fake, &["cut a release"]);
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);
    let first = fake.requests()[0].body.to_string();
    assert!(
        first.contains("release: How to cut a release of this project"),
        "{first}"
    );
    assert!(
        !first.contains("SECRET-STEPS"),
        "the body is not in the prompt"
    );
    assert!(
        first.contains("\"name\":\"skill\""),
        "the skill tool is offered"
    );
    let second = fake.requests()[1].body.to_string();
    assert!(
        second.contains("SECRET-STEPS") && second.contains("notes.md"),
        "{second}"
    );
}

/// A loopback web server: `/page` is HTML, `/redirect` sends to the cloud metadata address.
fn web_server() -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let mut buf = [0u8; 4096];
            let n = conn.read(&mut buf).unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]).to_string();
            let response = if head.starts_with("GET /redirect") {
                "HTTP/1.1 302 Found\r\nLocation: http://169.254.169.254/latest/meta-data/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_string()
            } else {
                let body = "<html><body><h1>Title</h1><p>Hello <a href=\"https://x.test/\">link</a></p></body></html>";
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
            };
            let _ = conn.write_all(response.as_bytes());
        }
    });
    port
}

fn fetch_call(id: &str, url: &str) -> Turn {
    let args = serde_json::json!({"url": url}).to_string();
    Turn::tool_calls(&[(id, "web_fetch", args.as_str())])
}

fn tool_answer(fake: &FakeProvider, id: &str) -> String {
    fake.requests()
        .iter()
        .flat_map(|r| messages(&r.body))
        .find(|m| m["tool_call_id"] == id)
        .map(|m| m["content"].as_str().unwrap().to_string())
        .unwrap_or_default()
}

#[test]
fn web_fetch_refuses_private_hosts_unless_allowed_and_checks_every_redirect() {
    let env = TestEnv::new().unwrap();
    let port = web_server();
    let page = format!("http://127.0.0.1:{port}/page");
    let fake = FakeProvider::start(vec![fetch_call("f1", &page), Turn::text("no")]);
    let refused = run(&env, &fake, &["--yes", "fetch"]);
    assert_eq!(refused.result()["status"], "answered", "{}", refused.stderr);
    let answer = tool_answer(&fake, "f1");
    assert!(
        answer.contains("loopback address") && answer.contains("allow_private_hosts"),
        "{answer}"
    );

    std::fs::write(
        env.config_file(),
        r#"{"settings": {"web_fetch": {"allow_private_hosts": true}}}"#,
    )
    .unwrap();
    let fake = FakeProvider::start(vec![
        fetch_call("f2", &page),
        fetch_call("f3", &format!("http://127.0.0.1:{port}/redirect")),
        Turn::text("read it"),
    ]);
    let allowed = run(&env, &fake, &["--yes", "fetch"]);
    assert_eq!(allowed.result()["status"], "answered", "{}", allowed.stderr);
    let markdown = tool_answer(&fake, "f2");
    assert!(markdown.contains("Status: 200 OK"), "{markdown}");
    assert!(
        markdown.contains("# Title") && markdown.contains("Hello [link](https://x.test/)"),
        "{markdown}"
    );
    let redirect = tool_answer(&fake, "f3");
    assert!(
        redirect.contains("169.254.169.254") && redirect.contains("metadata"),
        "{redirect}"
    );
}
