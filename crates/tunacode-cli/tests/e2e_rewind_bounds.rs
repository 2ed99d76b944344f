//! A 2 GB workspace with a 1 GB untracked file: the snapshot before the first edit is held inside
//! `git add` (a `git` on PATH that waits for the test's word), and the edit still lands once the
//! bound (`settings.rewind.snapshot_wait_ms`) has passed, with a notice; the snapshot finishes in
//! the background and, completed by the edit's pre-image, rewinds it exactly. The big files are
//! never read (over the size cap) and the one the agent changed is named as not restorable.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{FakeProvider, LineReader, TestEnv, Turn};

const WAIT: Duration = Duration::from_secs(30);

/// A `git` that holds the first `add -A` until `release` exists (saying so in `held`).
fn holding_git(dir: &Path, held: &Path, release: &Path) -> std::path::PathBuf {
    let real = std::process::Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .unwrap();
    let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = format!(
        "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = \"-A\" ] && all=1; done\n\
         if [ -n \"$all\" ] && [ ! -e '{release}' ]; then\n  touch '{held}'\n  \
         while [ ! -e '{release}' ]; do sleep 0.02; done\nfi\nexec '{real}' \"$@\"\n",
        release = release.display(),
        held = held.display(),
    );
    let path = bin.join("git");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// Waits until `check` holds, or fails after `WAIT`.
fn wait_until(what: &str, check: impl Fn() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn the_first_edit_waits_only_the_bound_and_a_big_file_is_named_not_restorable() {
    let env = TestEnv::new().unwrap();
    let ws = env.workspace();
    for name in ["big.bin", "data.bin"] {
        let file = std::fs::File::create(ws.join(name)).unwrap();
        file.set_len(1 << 30).unwrap();
    }
    std::fs::write(ws.join("a.txt"), "alpha\n").unwrap();
    let (held, release) = (
        env.workspace().join("../held"),
        env.workspace().join("../release"),
    );
    let git_dir = holding_git(&ws.join(".."), &held, &release);
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[(
            "u",
            "update_file",
            r#"{"file_path": "a.txt", "target": "alpha", "replacement": "ALPHA"}"#,
        )]),
        Turn::tool_calls(&[("s", "bash", r#"{"command": "printf x >> big.bin"}"#)]),
        Turn::text("done"),
    ]);
    std::fs::create_dir_all(env.config_file().parent().unwrap()).unwrap();
    let config = json!({"settings": {"rewind": {"snapshot_wait_ms": 200}}});
    std::fs::write(env.config_file(), config.to_string()).unwrap();
    let path = format!(
        "{}:{}",
        git_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = env
        .command(&bin())
        .args(["run", "--model", "openai:test-model", "--base-url"])
        .arg(fake.base_url())
        .args([
            "--input-format",
            "stream-json",
            "--output",
            "stream-json",
            "--yes",
        ])
        .env("PATH", path)
        .env("TUNACODE_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = LineReader::new(child.stdout.take().unwrap());
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{}", json!({"type": "user_message", "text": "edit"})).unwrap();

    reader
        .wait_for(WAIT, |l| {
            l.contains("\"type\":\"notice\"") && l.contains("more than 200 ms")
        })
        .expect("a notice that the snapshot goes on in the background");
    wait_until("the edit", || {
        std::fs::read_to_string(ws.join("a.txt")).is_ok_and(|t| t == "ALPHA\n")
    });
    assert!(
        held.exists() && !release.exists(),
        "the edit landed while the snapshot was held"
    );
    std::fs::write(&release, "").unwrap();
    // Every line is kept, so a failure shows the notices that came with the request.
    let seen = std::cell::RefCell::new(Vec::new());
    let mut until = |kind: &str| -> Value {
        let wanted = format!("\"type\":\"{kind}\"");
        let line = reader
            .wait_for(WAIT, |l| {
                seen.borrow_mut().push(l.to_string());
                l.contains(&wanted)
            })
            .unwrap_or_else(|| panic!("no {kind} line"));
        serde_json::from_str(&line).unwrap()
    };
    assert_eq!(until("result")["status"], "answered");
    writeln!(
        stdin,
        "{}",
        json!({"type": "rewind", "to": 1, "mode": "code"})
    )
    .unwrap();
    let rewound = until("rewound");
    drop(stdin);
    finish(child, Some(reader));
    let notices: Vec<String> = seen
        .borrow()
        .iter()
        .filter(|l| l.contains("\"type\":\"notice\""))
        .cloned()
        .collect();
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).unwrap(),
        "alpha\n",
        "{rewound} {notices:?}"
    );
    let skipped = rewound["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{rewound}");
    assert_eq!(skipped[0]["path"], "big.bin");
    assert!(
        skipped[0]["reason"]
            .as_str()
            .unwrap()
            .contains("1.0 GiB is over the 16 MiB cap"),
        "{rewound}"
    );
    assert!(
        rewound["notes"][0]
            .as_str()
            .unwrap()
            .contains("finished after the turn's first change"),
        "{rewound}"
    );
}
