//! End-to-end: a real language server (pyright, installed by `scripts/setup-language-servers.sh`)
//! reports the type error an edit introduced in the edit's own result, and not the error the file
//! already had.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::json;
use tunacode_testkit::{FakeProvider, TestEnv, Turn, pyright_langserver};

#[test]
fn an_edit_that_introduces_a_type_error_gets_it_and_not_the_old_one() {
    let env = TestEnv::new().unwrap();
    let server = pyright_langserver().display().to_string();
    let config = json!({"settings": {"lsp": {
        "wait_ms": 20000,
        "servers": {"pyright": {"command": [server, "--stdio"], "extensions": ["py"],
                                 "language_id": "python"}}
    }}});
    std::fs::write(env.config_file(), config.to_string()).unwrap();
    std::fs::write(
        env.workspace().join("app.py"),
        "old_value: int = \"already wrong\"\n\n\ndef name() -> str:\n    return \"tuna\"\n",
    )
    .unwrap();
    let edit =
        json!({"file_path": "app.py", "target": "return \"tuna\"", "replacement": "return 42"});
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("e1", "update_file", &edit.to_string())]),
        Turn::text("Edited."),
    ]);
    let run = run(&env, &fake, &["--yes", "change name()"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let answer = answer(&fake, "e1");
    assert!(
        answer.contains("[language server: new errors after this edit]\napp.py:"),
        "{answer}"
    );
    assert!(
        answer.contains("5:12 error:")
            && answer.contains("\"str\"")
            && answer.contains("Literal[42]"),
        "{answer}"
    );
    assert!(
        !answer.contains("already wrong"),
        "the old error is not new: {answer}"
    );
    assert!(!answer.contains("incomplete"), "{answer}");
}

#[test]
fn a_server_that_cannot_start_is_said_once_and_not_retried() {
    let env = TestEnv::new().unwrap();
    let config = json!({"settings": {"lsp": {"servers": {"broken": {
        "command": ["sh", "-c", "exit 3"], "extensions": ["txt"]}}}}});
    std::fs::write(env.config_file(), config.to_string()).unwrap();
    let write = |id: &str, file: &str| {
        let args = json!({"file_path": file, "content": "x"}).to_string();
        Turn::tool_calls(&[(id, "write_file", &args)])
    };
    let fake = FakeProvider::start(vec![
        write("w1", "a.txt"),
        write("w2", "b.txt"),
        Turn::text("Wrote both."),
    ]);
    let run = run(&env, &fake, &["--yes", "write"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let said: Vec<String> = run
        .of_type("notice")
        .iter()
        .filter_map(|n| n["message"].as_str())
        .filter(|m| m.contains("language server broken"))
        .map(str::to_string)
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("could not start"), "{said:?}");
    assert!(
        answer(&fake, "w2").starts_with("Created"),
        "{}",
        answer(&fake, "w2")
    );
}
