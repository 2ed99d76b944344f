//! End-to-end: "done" only with proof. The real binary runs the project's checks against scripted
//! models: an edit that breaks a Python or Rust file gets the new error in the same tool result (and
//! not the errors that were there before); a task whose tests fail at completion goes on, fixes the
//! file and ends `verified`; one that cannot fix them ends `failing` with the check's tail; no
//! checks is `unverified`, and an answer that claims the tests pass unproven is labelled.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{FakeProvider, TestEnv, Turn};

fn write_checks(env: &TestEnv, checks: Value) {
    let config = json!({"settings": {"checks": checks}});
    std::fs::write(env.config_file(), config.to_string()).unwrap();
}

fn write_call(id: &str, path: &str, content: &str) -> Turn {
    let args = json!({"file_path": path, "content": content});
    Turn::tool_calls(&[(id, "write_file", &args.to_string())])
}

fn update_call(id: &str, path: &str, target: &str, replacement: &str) -> Turn {
    let args = json!({"file_path": path, "target": target, "replacement": replacement});
    Turn::tool_calls(&[(id, "update_file", &args.to_string())])
}

/// The text of the tool answer to `id` in the request the provider got.
fn answer_in(fake: &FakeProvider, id: &str) -> String {
    answer(fake, id)
}

fn verification(run: &Run) -> Value {
    run.result()["verification"].clone()
}

#[test]
fn an_edit_that_breaks_a_python_file_gets_the_new_error_in_its_result_and_not_the_old_one() {
    let env = TestEnv::new().unwrap();
    std::fs::write(env.workspace().join("old.py"), "def broken(:\n").unwrap();
    std::fs::write(env.workspace().join("app.py"), "x = 1\n").unwrap();
    write_checks(
        &env,
        json!({"max_rounds": 0, "list": [{"name": "compile", "kind": "typecheck",
                "when": "after_edit", "command": "python3 -m compileall -q -f .", "files": ["**/*.py"]}]}),
    );
    let fake = FakeProvider::start(vec![
        update_call("e1", "app.py", "x = 1", "x = (1"),
        Turn::text("Edited."),
    ]);
    let run = run(&env, &fake, &["--yes", "edit app.py"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let answer = answer_in(&fake, "e1");
    assert!(
        answer.contains("[check `compile` (typecheck) after this edit: new problems]"),
        "{answer}"
    );
    assert!(answer.contains("app.py"), "{answer}");
    assert!(
        !answer.contains("old.py"),
        "the old failure is not blamed: {answer}"
    );
    let checks = run.of_type("check_finished");
    let phases: Vec<&str> = checks
        .iter()
        .map(|c| c["phase"].as_str().unwrap())
        .collect();
    assert_eq!(phases, vec!["baseline", "after_edit"]);
    assert_eq!(checks[1]["status"], "failed");
    let v = verification(&run);
    assert_eq!(v["status"], "failing");
    assert_eq!(v["checks"][0]["name"], "compile");
}

#[test]
fn an_edit_that_breaks_a_rust_file_gets_the_compiler_error_in_its_result() {
    let env = TestEnv::new().unwrap();
    std::fs::write(
        env.workspace().join("lib.rs"),
        "pub fn one() -> u32 { 1 }\n",
    )
    .unwrap();
    write_checks(
        &env,
        json!({"max_rounds": 0, "list": [{"name": "rustc", "kind": "typecheck",
                "when": "after_edit", "files": ["*.rs"],
                "command": "rustc --edition 2021 --crate-type lib --emit=metadata -o out.rmeta lib.rs"}]}),
    );
    let fake = FakeProvider::start(vec![
        update_call("e1", "lib.rs", "{ 1 }", "{ \"one\" }"),
        Turn::text("Edited."),
    ]);
    let run = run(&env, &fake, &["--yes", "edit lib.rs"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let answer = answer_in(&fake, "e1");
    assert!(
        answer.contains("error[E0308]: mismatched types"),
        "{answer}"
    );
}

#[test]
fn failing_tests_at_completion_send_the_model_back_and_the_fix_ends_verified() {
    let env = TestEnv::new().unwrap();
    std::fs::write(
        env.workspace().join("calc.py"),
        "def add(a, b):\n    return a + b\n",
    )
    .unwrap();
    std::fs::write(
        env.workspace().join("test_calc.py"),
        "from calc import add\nassert add(2, 2) == 4, 'add is wrong'\nprint('tests ok')\n",
    )
    .unwrap();
    write_checks(
        &env,
        json!([{"name": "tests", "kind": "test", "command": "python3 test_calc.py"}]),
    );
    let fake = FakeProvider::start(vec![
        update_call("e1", "calc.py", "a + b", "a - b"),
        Turn::text("Done: all tests pass."),
        update_call("e2", "calc.py", "a - b", "a + b"),
        Turn::text("Fixed the sign."),
    ]);
    let run = run(&env, &fake, &["--yes", "refactor add"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(fake.requests().len(), 4);
    let told = fake.requests()[2].body.to_string();
    assert!(
        told.contains("round 1 of 3") && told.contains("add is wrong"),
        "{told}"
    );
    let v = verification(&run);
    assert_eq!(v["status"], "verified", "{v}");
    assert_eq!(v["checks"][0]["status"], "passed");
    assert_eq!(run.result()["response"], "Fixed the sign.");
}

#[test]
fn tests_that_stay_broken_end_failing_with_their_tail() {
    let env = TestEnv::new().unwrap();
    write_checks(
        &env,
        json!({"max_rounds": 1, "list": [{"name": "tests", "kind": "test",
               "command": "echo 'FAILED test_one: expected 3'; exit 1"}]}),
    );
    let fake = FakeProvider::start(vec![
        write_call("w1", "a.txt", "one"),
        Turn::text("Done."),
        Turn::text("Still done, all tests pass."),
    ]);
    let run = run(&env, &fake, &["--yes", "write a.txt"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(fake.requests().len(), 3, "one round, then the verdict");
    let v = verification(&run);
    assert_eq!(v["status"], "failing");
    let tail = v["checks"][0]["output_tail"].as_str().unwrap();
    assert!(tail.contains("FAILED test_one: expected 3"), "{tail}");
    assert!(v["note"].as_str().unwrap().contains("still fail"), "{v}");
}

#[test]
fn no_checks_is_unverified_and_an_unproven_claim_is_labelled() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        write_call("w1", "a.txt", "one"),
        Turn::text("Done, and all tests pass."),
    ]);
    let run = run(&env, &fake, &["--yes", "write a.txt"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = verification(&run);
    assert_eq!(v["status"], "unverified");
    assert_eq!(v["checks"], json!([]));
    assert!(v["note"].as_str().unwrap().contains("no check proved it"));
}

#[test]
fn a_request_that_changes_nothing_runs_no_check() {
    let env = TestEnv::new().unwrap();
    write_checks(
        &env,
        json!([{"name": "tests", "kind": "test", "command": "exit 1"}]),
    );
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("r1", "list_dir", r#"{"directory": "."}"#)]),
        Turn::text("Nothing to change."),
    ]);
    let run = run(&env, &fake, &["look"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.of_type("check_finished").is_empty());
    assert_eq!(verification(&run)["status"], "unverified");
    assert_eq!(verification(&run)["note"], Value::Null);
}

/// `tunacode checks [approve]` in the test's home, from the workspace.
fn checks_cmd(env: &TestEnv, args: &[&str]) -> std::process::Output {
    env.command(&bin())
        .arg("checks")
        .args(args)
        .current_dir(env.workspace())
        .output()
        .unwrap()
}

#[test]
fn a_repository_s_checks_run_only_once_approved_and_never_see_the_key() {
    let env = TestEnv::new().unwrap();
    std::fs::create_dir(env.workspace().join(".tunacode")).unwrap();
    let file = env.workspace().join(".tunacode/checks.json");
    let project = json!([{"name": "env probe", "kind": "test",
        "command": "echo \"keys seen: $(env | grep -c -i api_key)\""}]);
    std::fs::write(&file, project.to_string()).unwrap();
    let turns = |file: &str| vec![write_call("w1", file, "one"), Turn::text("Wrote it.")];
    // Not approved: said, and not run.
    let fake = FakeProvider::start(turns("a.txt"));
    let run1 = run_with_env(
        &env,
        &fake,
        &["--yes", "write"],
        &[("OPENAI_API_KEY", "sk-secret")],
    );
    assert_eq!(run1.code, 0, "{}", run1.stderr);
    assert!(run1.of_type("check_finished").is_empty());
    let warned = run1.of_type("notice").iter().any(|n| {
        n["message"]
            .as_str()
            .is_some_and(|m| m.contains("checks.json") && m.contains("/checks approve"))
    });
    assert!(warned, "{}", run1.stdout);
    let listed = checks_cmd(&env, &[]);
    let listed = String::from_utf8_lossy(&listed.stdout).to_string();
    assert!(
        listed.contains("will not run until you approve them: env probe (`echo"),
        "{listed}"
    );
    // Approved: it runs, without the provider's key in its environment.
    let approved = checks_cmd(&env, &["approve"]);
    assert!(approved.status.success(), "{approved:?}");
    let approved = String::from_utf8_lossy(&approved.stdout).to_string();
    assert!(
        approved.contains("env probe (test, at completion"),
        "{approved}"
    );
    let fake = FakeProvider::start(turns("b.txt"));
    let run2 = run_with_env(
        &env,
        &fake,
        &["--yes", "write"],
        &[("OPENAI_API_KEY", "sk-secret")],
    );
    let v = verification(&run2);
    assert_eq!(v["status"], "verified", "{v}");
    assert!(
        v["checks"][0]["output_tail"]
            .as_str()
            .unwrap()
            .contains("keys seen: 0"),
        "{v}"
    );
    // A changed file waits for a new approval.
    std::fs::write(&file, project.to_string().replace("env probe", "changed")).unwrap();
    let fake = FakeProvider::start(turns("c.txt"));
    let run3 = run(&env, &fake, &["--yes", "write"]);
    assert_eq!(run3.code, 0, "{}", run3.stderr);
    assert!(run3.of_type("check_finished").is_empty());
    assert_eq!(verification(&run3)["status"], "unverified");
}

#[test]
fn init_asks_for_agents_md_and_the_checks_the_build_files_suggest() {
    let env = TestEnv::new().unwrap();
    std::fs::write(
        env.workspace().join("Cargo.toml"),
        "[package]\nname = \"x\"\n",
    )
    .unwrap();
    let fake = FakeProvider::start(vec![Turn::text("Written.")]);
    let run = run(&env, &fake, &["/init"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let sent = fake.requests()[0].body.to_string();
    assert!(sent.contains("AGENTS.md"), "{sent}");
    assert!(sent.contains(".tunacode/checks.json"), "{sent}");
    assert!(sent.contains("cargo check --quiet --all-targets"), "{sent}");
    assert!(
        !sent.contains("\"/init\""),
        "the command itself is not sent"
    );
}

#[test]
fn a_repository_s_check_does_not_run_without_the_sandbox() {
    let env = TestEnv::new().unwrap();
    std::fs::create_dir(env.workspace().join(".tunacode")).unwrap();
    let project = json!([{"name": "probe", "kind": "test", "command": "echo ran"}]);
    std::fs::write(
        env.workspace().join(".tunacode/checks.json"),
        project.to_string(),
    )
    .unwrap();
    assert!(checks_cmd(&env, &["approve"]).status.success());
    let fake = FakeProvider::start(vec![write_call("w1", "a.txt", "one"), Turn::text("Done.")]);
    let run = run(&env, &fake, &["--yes", "--sandbox", "off", "write"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        fake.requests().len(),
        2,
        "a check that could not run starts no fix round"
    );
    let v = verification(&run);
    assert_eq!(v["status"], "unverified", "{v}");
    assert_eq!(v["checks"][0]["status"], "error");
    let tail = v["checks"][0]["output_tail"].as_str().unwrap();
    assert!(
        tail.contains("runs only inside the commands' sandbox"),
        "{tail}"
    );
    assert!(!tail.contains("ran"), "{tail}");
}
