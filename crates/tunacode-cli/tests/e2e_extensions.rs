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
        text.lines().filter(|l| l.contains(".md")).count(),
        4,
        "{text}"
    );
}
