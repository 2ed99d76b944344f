//! Rewind, redo, fork, export and import end to end: three prompts change files through
//! `write_file` and `update_file`, `apply_patch` and a `bash` `sed -i` (the first and the last also
//! change a file the project's `.gitignore` ignores); the user edits a file
//! in between; a script rewinds and forks over stream-json, then `tunacode rewind`, `redo`, `fork`,
//! `export` and `import` do it again from the command line on the saved session.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{FakeProvider, TestEnv, Turn};

const WAIT: Duration = Duration::from_secs(30);

fn read(ws: &Path, name: &str) -> Option<String> {
    std::fs::read_to_string(ws.join(name)).ok()
}

fn three_prompts() -> Vec<Turn> {
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-alpha\n+ALPHA\n*** Add File: c.txt\n+c2\n*** End Patch";
    vec![
        Turn::tool_calls(&[
            (
                "w1",
                "write_file",
                r#"{"file_path": "new.txt", "content": "one\n"}"#,
            ),
            (
                "u",
                "update_file",
                r#"{"file_path": "gen/config.ini", "target": "KEY=0", "replacement": "KEY=1"}"#,
            ),
        ]),
        Turn::text("done one"),
        Turn::tool_calls(&[("p", "apply_patch", &json!({"input": patch}).to_string())]),
        Turn::text("done two"),
        Turn::tool_calls(&[(
            "s",
            "bash",
            r#"{"command": "sed -i s/beta/BETA/ b.txt && sed -i s/KEY=1/KEY=3/ gen/config.ini"}"#,
        )]),
        Turn::text("done three"),
    ]
}

fn seed(ws: &Path) {
    std::fs::write(ws.join("a.txt"), "alpha\n").unwrap();
    std::fs::write(ws.join("b.txt"), "beta\n").unwrap();
    std::fs::write(ws.join(".gitignore"), "gen/\n").unwrap();
    std::fs::create_dir(ws.join("gen")).unwrap();
    std::fs::write(ws.join("gen/config.ini"), "KEY=0\n").unwrap();
}

/// Sends `line` and waits for the output line of `kind`; it, parsed.
fn ask(
    stdin: &mut impl Write,
    reader: &mut tunacode_testkit::LineReader,
    line: Value,
    kind: &str,
) -> Value {
    writeln!(stdin, "{line}").unwrap();
    let wanted = format!("\"type\":\"{kind}\"");
    let got = reader
        .wait_for(WAIT, |l| {
            l.contains(&wanted) || l.contains("\"type\":\"error\"")
        })
        .unwrap_or_else(|| panic!("no {kind} line"));
    let value: Value = serde_json::from_str(&got).unwrap();
    assert_eq!(value["type"], kind, "{got}");
    value
}

fn prompts_of(session: &Value) -> Vec<String> {
    session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().cloned().unwrap_or_default())
        .filter(|p| p["part_kind"] == "user-prompt")
        .map(|p| p["content"].as_str().unwrap_or("").to_string())
        .collect()
}

fn session_file(env: &TestEnv, id: &str) -> Value {
    let path = env
        .session_files()
        .into_iter()
        .find(|p| p.to_string_lossy().contains(id))
        .unwrap_or_else(|| panic!("no file of session {id}"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn cli(env: &TestEnv, args: &[&str]) -> String {
    let out = env.command(&bin()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn rewind_redo_and_fork_over_stream_json_and_the_command_line() {
    let env = TestEnv::new().unwrap();
    let ws = env.workspace();
    seed(&ws);
    let fake = FakeProvider::start(three_prompts());
    let (mut child, mut reader) = spawn_stream(&env, &fake, "openai:test-model", &["--yes"]);
    let mut stdin = child.stdin.take().unwrap();
    for text in ["first", "second", "third"] {
        ask(
            &mut stdin,
            &mut reader,
            json!({"type": "user_message", "text": text}),
            "result",
        );
    }
    assert_eq!(read(&ws, "b.txt").as_deref(), Some("BETA\n"));
    assert_eq!(read(&ws, "gen/config.ini").as_deref(), Some("KEY=3\n"));
    std::fs::write(ws.join("a.txt"), "the user's alpha\n").unwrap();

    let rewound = ask(
        &mut stdin,
        &mut reader,
        json!({"type": "rewind", "to": 2}),
        "rewound",
    );
    assert_eq!(rewound["text"], "second");
    assert_eq!(rewound["kept"], json!(["a.txt"]), "{rewound}");
    assert_eq!(read(&ws, "b.txt").as_deref(), Some("beta\n"));
    assert_eq!(read(&ws, "c.txt"), None);
    assert_eq!(read(&ws, "a.txt").as_deref(), Some("the user's alpha\n"));
    assert_eq!(read(&ws, "gen/config.ini").as_deref(), Some("KEY=1\n"));
    let again = ask(
        &mut stdin,
        &mut reader,
        json!({"type": "rewind", "to": 1}),
        "rewound",
    );
    assert_eq!(again["text"], "first");
    assert_eq!(read(&ws, "new.txt"), None);
    assert_eq!(
        read(&ws, "gen/config.ini").as_deref(),
        Some("KEY=0\n"),
        "the ignored file is back"
    );
    let back = ask(&mut stdin, &mut reader, json!({"type": "redo"}), "rewound");
    assert_eq!(back["kind"], "redo");
    assert_eq!(read(&ws, "b.txt").as_deref(), Some("BETA\n"));
    assert_eq!(read(&ws, "c.txt").as_deref(), Some("c2\n"));
    assert_eq!(
        read(&ws, "gen/config.ini").as_deref(),
        Some("KEY=3\n"),
        "redo"
    );
    assert_eq!(read(&ws, "a.txt").as_deref(), Some("the user's alpha\n"));
    let forked = ask(
        &mut stdin,
        &mut reader,
        json!({"type": "fork", "at": 1}),
        "forked",
    );
    reader
        .wait_for(WAIT, |l| l.contains("\"type\":\"session_opened\""))
        .expect("the fork opens");
    drop(stdin);
    finish(child, Some(reader));
    let original_id = forked["parent"].as_str().unwrap().to_string();
    let fork_id = forked["session_id"].as_str().unwrap().to_string();
    let original = session_file(&env, &original_id);
    assert_eq!(prompts_of(&original), ["first", "second", "third"]);
    assert_eq!(prompts_of(&session_file(&env, &fork_id)), ["first"]);

    command_line(&env, &original_id, &original);
}

/// The same on the saved session from the command line, then export and import.
fn command_line(env: &TestEnv, id: &str, original: &Value) {
    let ws = env.workspace();
    let said = cli(env, &["rewind", "--session", id, "--to", "2"]);
    assert!(said.contains("kept a.txt (you changed it since"), "{said}");
    assert!(
        said.contains("restored b.txt") && said.contains("removed c.txt"),
        "{said}"
    );
    assert_eq!(prompts_of(&session_file(env, id)), ["first"]);
    let listed = cli(env, &["rewind", "--session", id, "--list"]);
    assert!(
        listed.contains("  1  ") && !listed.contains("second"),
        "{listed}"
    );
    cli(
        env,
        &["rewind", "--session", id, "--to", "1", "--mode", "code"],
    );
    assert_eq!(read(&ws, "new.txt"), None);
    assert_eq!(prompts_of(&session_file(env, id)), ["first"], "code only");
    cli(env, &["redo", "--session", id]);
    assert_eq!(
        prompts_of(&session_file(env, id)),
        ["first", "second", "third"]
    );
    assert_eq!(read(&ws, "b.txt").as_deref(), Some("BETA\n"));
    assert_eq!(read(&ws, "new.txt").as_deref(), Some("one\n"));

    let before = session_file(env, id);
    let fork_out = cli(env, &["fork", &id[..8], "--at", "2"]);
    let fork_id = fork_out.lines().next().unwrap().trim().to_string();
    assert_eq!(
        prompts_of(&session_file(env, &fork_id)),
        ["first", "second"]
    );
    assert_eq!(
        session_file(env, id)["messages"],
        before["messages"],
        "the original is unchanged"
    );
    let tree = cli(env, &["sessions", "--tree"]);
    assert!(
        tree.contains(&format!("    {fork_id}")),
        "the fork is under its original: {tree}"
    );
    assert_eq!(prompts_of(original).len(), 3);

    let exported = cli(env, &["export", id, "--format", "json"]);
    let file = env.workspace().join("export.json");
    std::fs::write(&file, &exported).unwrap();
    let imported = cli(env, &["import", file.to_str().unwrap()]);
    let imported = imported.trim();
    assert_ne!(imported, id);
    assert_eq!(
        cli(env, &["export", imported, "--format", "json"]),
        exported
    );
    let md = cli(env, &["export", id]);
    assert!(
        md.contains("## Prompt 3") && md.contains("sed -i s/beta/BETA/ b.txt"),
        "{md}"
    );
    assert!(md.contains("## Rewinds and forks"), "{md}");
    let html = cli(env, &["export", id, "--format", "html"]);
    assert!(
        html.starts_with("<!DOCTYPE html>") && html.contains("Prompt 2"),
        "{html}"
    );
}
