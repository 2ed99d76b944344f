//! End-to-end: the command line as a new user meets it (issue 25). Output piped into `head` is no
//! error, a missing task is a usage error (2), the man page documents every command, `context` lists
//! the skills, and a headless run at the iteration limit offers no choices nothing can answer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use tunacode_testkit::{FakeProvider, TestEnv, Turn};

/// Runs `args` with stdout a pipe whose reader is already gone (as after `| head -1` has exited).
fn into_closed_pipe(env: &TestEnv, args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    env.command(&bin())
        .args(args)
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn output_into_a_closed_pipe_is_no_error_and_no_panic() {
    let env = TestEnv::new().unwrap();
    for args in [
        &["completions", "bash"][..],
        &["models"],
        &["man"],
        &["schema"],
    ] {
        let out = into_closed_pipe(&env, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

#[test]
fn run_without_a_task_is_a_usage_error() {
    let env = TestEnv::new().unwrap();
    let out = env
        .command(&bin())
        .args(["run", "--model", "openai:test-model"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no task given"));
}

#[test]
fn the_man_page_documents_every_command_and_points_to_no_missing_page() {
    let env = TestEnv::new().unwrap();
    let man = env.command(&bin()).arg("man").output().unwrap();
    let page = String::from_utf8_lossy(&man.stdout);
    for section in [
        ".SH \"TUNACODE RUN\"",
        ".SH \"TUNACODE MCP ADD\"",
        ".SH \"TUNACODE REWIND\"",
    ] {
        assert!(page.contains(section), "{section} missing");
    }
    // `run`'s own flags, not only the top level's.
    assert!(page.contains("\\-\\-input\\-format"), "{page}");
    assert!(
        !page.contains("tunacode\\-run(1)"),
        "a page that is not installed"
    );
    assert!(!page.contains("TUNACODE HELP"));
}

#[test]
fn context_lists_the_skills_beside_the_instruction_files() {
    let env = TestEnv::new().unwrap();
    let ws = env.workspace();
    std::fs::write(ws.join("AGENTS.md"), "Use tabs.\n").unwrap();
    let skill = ws.join(".tunacode/skills/release");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: release\ndescription: Cut a release\n---\nSteps.\n",
    )
    .unwrap();
    let out = env
        .command(&bin())
        .args(["context", "--cwd"])
        .arg(ws)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("AGENTS.md"), "{text}");
    assert!(text.contains("release"), "{text}");
}

#[test]
fn a_headless_run_at_the_iteration_limit_offers_no_choices() {
    let env = TestEnv::new().unwrap();
    let turns = (0..3)
        .map(|i| Turn::tool_calls(&[(&format!("c{i}"), "list_dir", "{}")]))
        .collect();
    let fake = FakeProvider::start(turns);
    let out = env
        .command(&bin())
        .args(["run", "--model", "openai:test-model", "--base-url"])
        .arg(fake.base_url())
        .args(["--max-iterations", "2", "loop forever"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("I've reached the iteration limit (2)."),
        "{stderr}"
    );
    assert!(stderr.contains("- Iterations completed: 2"), "{stderr}");
    assert!(!stderr.contains("Would you like me to"), "{stderr}");
}

#[test]
fn the_retries_of_one_failing_call_say_their_error_once_with_a_count() {
    let env = TestEnv::new().unwrap();
    let busy = || {
        Turn::http_error(
            503,
            &[("retry-after-ms", "10")],
            r#"{"error": {"message": "The server is overloaded", "type": "server_error"}}"#,
        )
    };
    let fake = FakeProvider::start(vec![busy(), busy(), busy(), Turn::text("Recovered.")]);
    let out = env
        .command(&bin())
        .args(["run", "--model", "openai:test-model", "--base-url"])
        .arg(fake.base_url())
        .arg("hello")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stderr.matches("The server is overloaded").count(),
        1,
        "{stderr}"
    );
    for n in 1..=3 {
        assert!(stderr.contains(&format!("(retry {n} of 4)")), "{stderr}");
    }
    assert_eq!(stderr.matches("  retrying in ").count(), 3, "{stderr}");
}
