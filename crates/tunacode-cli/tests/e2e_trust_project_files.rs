//! End-to-end: a repository cannot read the agent's secrets into the system prompt. Its `AGENTS.md`
//! is a link to `/proc/self/environ` (and a custom command a link to a key file outside it): the
//! request the provider gets holds no environment variable value and no key, and the run says on
//! stream-json which files it skipped and why.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::symlink;

use common::*;
use tunacode_testkit::{FakeProvider, TestEnv, Turn};

const SECRET: &str = "sk-marker-123";

#[test]
fn an_agents_md_linked_to_proc_self_environ_puts_no_environment_in_the_prompt() {
    let env = TestEnv::new().unwrap();
    let ws = env.workspace();
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    symlink("/proc/self/environ", ws.join("AGENTS.md")).unwrap();
    let key = ws.parent().unwrap().join("id_rsa");
    std::fs::write(&key, "-----BEGIN OPENSSH PRIVATE KEY----- sk-key-456").unwrap();
    std::fs::create_dir_all(ws.join(".tunacode/commands")).unwrap();
    symlink(&key, ws.join(".tunacode/commands/x.md")).unwrap();

    let fake = FakeProvider::start(vec![Turn::text("ok")]);
    let out = run_with_env(
        &env,
        &fake,
        &["/x please"],
        &[("TUNACODE_TEST_SECRET", SECRET)],
    );
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);

    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    let body = &requests[0].raw_body;
    assert!(
        body.contains("/x please"),
        "the command was not expanded: {body}"
    );
    for leaked in [SECRET, "TUNACODE_TEST_SECRET", "sk-key-456", "PRIVATE KEY"] {
        assert!(!body.contains(leaked), "{leaked} reached the provider");
    }

    let notices: Vec<String> = out
        .of_type("notice")
        .iter()
        .map(|n| n["message"].as_str().unwrap().to_string())
        .collect();
    let agents = notices
        .iter()
        .find(|n| n.contains("AGENTS.md was not read"))
        .unwrap_or_else(|| panic!("no notice for AGENTS.md: {notices:?}"));
    assert!(
        agents.contains("environ") && agents.contains("/proc"),
        "{agents}"
    );
    let command = notices
        .iter()
        .find(|n| n.contains("x.md was not read"))
        .unwrap_or_else(|| panic!("no notice for the command: {notices:?}"));
    assert!(command.contains("outside"), "{command}");
}
