//! The `tunacode-fake-provider` binary: script file in, base URL out, stops on stdin EOF.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use support::{CHAT, chat_body, request};
use tunacode_testkit::Turn;

const BIN: &str = env!("CARGO_BIN_EXE_tunacode-fake-provider");

#[tokio::test]
async fn serves_a_script_file_until_stdin_closes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("script.json");
    let requests = dir.path().join("requests.jsonl");
    let turns = vec![Turn::text("from the binary")];
    std::fs::write(&script, serde_json::to_string(&turns).expect("JSON")).expect("write script");

    let mut child = Command::new(BIN)
        .arg("--script")
        .arg(&script)
        .arg("--print-requests")
        .arg(&requests)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("base URL line");
    let base = line.trim().strip_prefix("http://").expect("http URL");
    let addr = base
        .strip_suffix("/v1")
        .expect("/v1")
        .parse()
        .expect("addr");

    let resp = request(addr, "POST", CHAT, &chat_body("bin-model")).await;
    assert_eq!(resp.status, 200);
    let text: String = resp
        .sse_json()
        .iter()
        .filter_map(|c| {
            c["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    assert_eq!(text, "from the binary");

    let mut stdin = child.stdin.take().expect("stdin");
    stdin.flush().expect("flush");
    drop(stdin);
    let status = child.wait().expect("wait");
    assert!(status.success());

    let lines = std::fs::read_to_string(&requests).expect("requests file");
    let recorded: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0]["method"], "POST");
    assert_eq!(recorded[0]["path"], CHAT);
    assert_eq!(recorded[0]["connection_id"], 1);
    assert_eq!(recorded[0]["body"]["model"], "bin-model");
}

#[test]
fn bad_arguments_exit_2_with_usage() {
    let out = Command::new(BIN).arg("--bogus").output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage: tunacode-fake-provider"));
    let out = Command::new(BIN).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
}
