//! End-to-end: commands in the sandbox and the environment they see, with the real binary and the fake
//! provider. Under `workspace-write` an approved command that writes outside the workspace fails and
//! the model is told why, a TCP connection to a loopback listener fails, a write in the workspace
//! works; `env` shows no key; a run outside the sandbox is refused headless even with `--yes`;
//! `rm -rf ~` is refused headless even with `--yes`; a deny rule beats `--yes`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::TcpListener;

use common::*;
use serde_json::json;
use tunacode_testkit::{FakeProvider, TestEnv, Turn};

fn bash(id: &str, command: &str) -> Turn {
    let args = json!({"command": command}).to_string();
    Turn::tool_calls(&[(id, "bash", args.as_str())])
}

/// A path outside both the workspace and the temp dir (the sandbox's writable roots).
fn outside_path(env: &TestEnv) -> std::path::PathBuf {
    let name = env
        .workspace()
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_owned();
    std::path::Path::new("/var/tmp").join(name)
}

#[test]
fn the_sandbox_confines_writes_and_the_network_and_commands_see_no_keys() {
    let env = TestEnv::new().unwrap();
    let outside = outside_path(&env);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let fake = FakeProvider::start(vec![
        bash("out", &format!("echo hi > {}", outside.display())),
        bash("in", "echo ok > inside.txt && cat inside.txt"),
        bash(
            "net",
            &format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"),
        ),
        bash("env", "env"),
        Turn::text("done"),
    ]);
    let run = run_with_env(
        &env,
        &fake,
        &["--yes", "try things"],
        &[
            ("SOME_SERVICE_API_KEY", "sk-hidden"),
            ("GITHUB_TOKEN", "ghp-hidden"),
            ("VISIBLE_VAR", "shown"),
        ],
    );
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);

    let out = answer(&fake, "out");
    assert!(out.contains("Permission denied"), "{out}");
    assert!(
        out.contains("workspace-write sandbox"),
        "the model is told why: {out}"
    );
    assert!(out.contains("outside_sandbox"), "{out}");
    assert!(!outside.exists(), "nothing was written outside");

    let inside = answer(&fake, "in");
    assert!(inside.starts_with("exit code: 0"), "{inside}");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("inside.txt")).unwrap(),
        "ok\n"
    );

    let net = answer(&fake, "net");
    assert!(
        !net.starts_with("exit code: 0") && !net.contains("connected"),
        "{net}"
    );

    let shown = answer(&fake, "env");
    assert!(shown.contains("VISIBLE_VAR=shown"), "{shown}");
    assert!(shown.contains("PATH="), "{shown}");
    for secret in [
        "sk-hidden",
        "ghp-hidden",
        "SOME_SERVICE_API_KEY",
        "OPENAI_API_KEY",
    ] {
        assert!(!shown.contains(secret), "{secret} leaked: {shown}");
    }
}

#[test]
fn running_outside_the_sandbox_needs_a_person_and_off_runs_everything() {
    let env = TestEnv::new().unwrap();
    let outside = outside_path(&env);
    let escape =
        json!({"command": format!("echo hi > {}", outside.display()), "outside_sandbox": true});
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("esc", "bash", escape.to_string().as_str())]),
        Turn::text("could not"),
    ]);
    let first = run(&env, &fake, &["--yes", "write outside"]);
    assert_eq!(first.result()["status"], "answered");
    let refused = answer(&fake, "esc");
    assert!(
        refused.contains("outside the workspace-write sandbox"),
        "{refused}"
    );
    assert!(refused.contains("terminal"), "{refused}");
    assert!(!outside.exists());

    let fake = FakeProvider::start(vec![
        bash("plain", &format!("echo hi > {}", outside.display())),
        Turn::text("wrote it"),
    ]);
    let unconfined = run(&env, &fake, &["--yes", "--sandbox", "off", "write outside"]);
    assert_eq!(unconfined.result()["status"], "answered");
    let written = answer(&fake, "plain");
    let _ = std::fs::remove_file(&outside);
    assert!(written.starts_with("exit code: 0"), "{written}");

    let bad = run(&env, &fake, &["--sandbox", "nope", "x"]);
    assert_ne!(bad.code, 0);
    assert!(
        bad.stderr.contains("unknown sandbox mode `nope`"),
        "{}",
        bad.stderr
    );
}

#[test]
fn dangerous_commands_and_deny_rules_beat_yes() {
    let env = TestEnv::new().unwrap();
    std::fs::write(
        env.config_file(),
        json!({"permissions": {"deny": ["bash(git push:*)", "read_file(.env)"]}}).to_string(),
    )
    .unwrap();
    std::fs::write(env.workspace().join(".env"), "KEY=1\n").unwrap();
    let fake = FakeProvider::start(vec![
        bash("rm", "rm -rf ~"),
        bash("push", "git push --force origin main"),
        Turn::tool_calls(&[("read", "read_file", r#"{"file_path": ".env"}"#)]),
        Turn::text("stopped"),
    ]);
    let run = run(&env, &fake, &["--yes", "clean up"]);
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);
    let rm = answer(&fake, "rm");
    assert!(
        rm.contains("dangerous") && rm.contains("home directory"),
        "{rm}"
    );
    assert!(rm.contains("terminal"), "{rm}");
    let push = answer(&fake, "push");
    assert!(
        push.contains("permission rule `bash(git push:*)`"),
        "{push}"
    );
    let read = answer(&fake, "read");
    assert!(
        read.contains("read_file(.env)"),
        "a deny rule covers reads too: {read}"
    );
    assert!(env.workspace().exists());
}

fn seed_files(env: &TestEnv) {
    std::fs::write(env.workspace().join("a.txt"), "alpha\n").unwrap();
    std::fs::write(env.workspace().join("b.txt"), "beta\n").unwrap();
}

fn assert_restored(env: &TestEnv) {
    let ws = env.workspace();
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).unwrap(),
        "alpha\n"
    );
    assert_eq!(std::fs::read_to_string(ws.join("b.txt")).unwrap(), "beta\n");
    assert!(!ws.join("new.txt").exists());
}

#[test]
fn undo_restores_a_write_an_update_and_a_sed_through_the_runtime_and_the_command() {
    use std::io::Write;
    let env = TestEnv::new().unwrap();
    seed_files(&env);
    let fake = FakeProvider::start(edit_turns());
    let (mut child, mut reader) = spawn_stream(&env, &fake, "openai:test-model", &["--yes"]);
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{}", json!({"type": "user_message", "text": "edit"})).unwrap();
    let wait = std::time::Duration::from_secs(30);
    reader
        .wait_for(wait, |l| l.contains("\"type\":\"result\""))
        .expect("the request ends");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("a.txt")).unwrap(),
        "ALPHA\n"
    );
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("b.txt")).unwrap(),
        "BETA\n"
    );
    writeln!(stdin, "{}", json!({"type": "undo"})).unwrap();
    let line = reader
        .wait_for(wait, |l| l.contains("\"type\":\"rewound\""))
        .expect("rewound");
    drop(stdin);
    finish(child, Some(reader));
    let undone: serde_json::Value = serde_json::from_str(&line).unwrap();
    let mut files: Vec<(String, String)> = undone["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().into(),
                f["how"].as_str().unwrap().into(),
            )
        })
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            ("a.txt".into(), "restored".into()),
            ("b.txt".into(), "restored".into()),
            ("new.txt".into(), "removed".into())
        ]
    );
    assert_restored(&env);

    // The same through `tunacode undo`, after a plain run.
    let fake = FakeProvider::start(edit_turns());
    let edited = run(&env, &fake, &["--yes", "edit again"]);
    assert_eq!(edited.result()["status"], "answered");
    assert!(env.workspace().join("new.txt").exists());
    let session = edited.result()["session_id"].as_str().unwrap().to_string();
    let out = env
        .command(&bin())
        .args(["undo", "--session", &session[..8]])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("removed new.txt") && said.contains("restored b.txt"),
        "{said}"
    );
    assert_restored(&env);
    let listed = env
        .command(&bin())
        .args(["undo", "--list", "--session", &session])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.contains("  1  ") && listed.contains("edit again"),
        "{listed}"
    );
    assert!(
        listed.contains("changed: a.txt, b.txt, new.txt"),
        "{listed}"
    );
}

/// A loopback HTTP server answering `through` to every request, on its own thread.
fn http_upstream() -> u16 {
    use std::io::{Read, Write};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf);
            let _ = conn.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\nthrough",
            );
        }
    });
    port
}

#[test]
fn allowed_hosts_are_reached_through_the_proxy_and_nothing_else() {
    let env = TestEnv::new().unwrap();
    let up = http_upstream();
    std::fs::write(
        env.config_file(),
        json!({"settings": {"sandbox": {"allowed_hosts": ["127.0.0.1"]}}}).to_string(),
    )
    .unwrap();
    let fake = FakeProvider::start(vec![
        bash(
            "via",
            &format!("curl -sS --max-time 10 http://127.0.0.1:{up}/"),
        ),
        bash(
            "direct",
            &format!("curl -sS --max-time 10 --noproxy '*' http://127.0.0.1:{up}/"),
        ),
        Turn::text("done"),
    ]);
    let run1 = run(&env, &fake, &["--yes", "fetch"]);
    assert_eq!(run1.result()["status"], "answered", "{}", run1.stderr);
    let via = answer(&fake, "via");
    assert!(
        via.starts_with("exit code: 0") && via.contains("through"),
        "{via}"
    );
    let direct = answer(&fake, "direct");
    assert!(
        !direct.starts_with("exit code: 0") && !direct.contains("through"),
        "{direct}"
    );

    std::fs::write(
        env.config_file(),
        json!({"settings": {"sandbox": {"allowed_hosts": ["*.crates.io"]}}}).to_string(),
    )
    .unwrap();
    let fake = FakeProvider::start(vec![
        bash(
            "other",
            &format!("curl -sS --max-time 10 http://127.0.0.1:{up}/"),
        ),
        Turn::text("done"),
    ]);
    let run2 = run(&env, &fake, &["--yes", "fetch"]);
    assert_eq!(run2.result()["status"], "answered");
    let other = answer(&fake, "other");
    assert!(
        other.contains("not among the hosts") && !other.contains("through"),
        "{other}"
    );
}
