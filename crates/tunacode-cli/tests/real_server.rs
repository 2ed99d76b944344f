//! End-to-end against a real OpenAI-compatible server: llama.cpp's `llama-server` with SmolLM2-135M,
//! installed by `scripts/setup-llama-server.sh` (paths in `LLAMA_SERVER` and `LLAMA_MODEL`). Proves the
//! real HTTP and streaming path, usage parsing, and a turn after a tool result. Exact tool logic stays
//! on the scripted fake provider: this model never emits structured tool calls through llama-server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::bin;
use serde_json::{Value, json};
use tunacode_testkit::{TestEnv, wait_with_timeout};

struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `GET /health`: the status code, or `None` while the server does not accept connections.
fn health(port: u16) -> Option<u16> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    stream
        .write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut reply = String::new();
    stream.read_to_string(&mut reply).ok()?;
    reply.split_whitespace().nth(1)?.parse().ok()
}

fn start_server() -> Server {
    let server =
        std::env::var("LLAMA_SERVER").expect("LLAMA_SERVER: run scripts/setup-llama-server.sh");
    let model =
        std::env::var("LLAMA_MODEL").expect("LLAMA_MODEL: run scripts/setup-llama-server.sh");
    let port = free_port();
    let child = Command::new(server)
        .args([
            "-m",
            &model,
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
        ])
        .args(["-c", "4096", "-n", "48", "-t", "1", "--no-webui"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start llama-server");
    let mut server = Server { child, port };
    let deadline = Instant::now() + Duration::from_secs(120);
    while health(port) != Some(200) {
        assert!(
            server.child.try_wait().unwrap().is_none(),
            "llama-server exited while starting"
        );
        assert!(
            Instant::now() < deadline,
            "llama-server did not become healthy in time"
        );
        // Waiting for a port to open has no event to block on; a short pause between probes.
        std::thread::sleep(Duration::from_millis(100));
    }
    server.port = port;
    server
}

fn run(env: &TestEnv, server: &Server, extra: &[&str]) -> (i32, Value) {
    let mut child = env
        .command(&bin())
        .args([
            "run",
            "--model",
            "llamacpp:smollm2",
            "--base-url",
            &format!("http://127.0.0.1:{}/v1", server.port),
        ])
        .args(["--output", "json", "--max-iterations", "2"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status =
        wait_with_timeout(&mut child, Duration::from_secs(180)).expect("tunacode finished");
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    (
        status.code().unwrap_or(-1),
        serde_json::from_str(out.trim()).unwrap_or(Value::Null),
    )
}

#[test]
fn a_real_server_streams_an_answer_with_usage_and_answers_after_a_tool_result() {
    let server = start_server();
    let env = TestEnv::new().unwrap();

    let (code, result) = run(&env, &server, &["Say hello in one short sentence."]);
    assert!(code == 0 || code == 3, "exit {code}: {result}");
    assert!(
        !result["response"].as_str().unwrap_or("").trim().is_empty(),
        "{result}"
    );
    let usage = &result["usage"];
    assert!(usage["request_tokens"].as_u64().unwrap() > 10, "{result}");
    assert!(usage["response_tokens"].as_u64().unwrap() > 0, "{result}");

    // A stored session whose last turn called a tool and got its result; the real server must accept
    // the tool-call history (assistant tool_calls + tool message) and answer.
    let session_path = env.session_files()[0].clone();
    let mut session: Value =
        serde_json::from_str(&std::fs::read_to_string(&session_path).unwrap()).unwrap();
    session["messages"].as_array_mut().unwrap().extend([
        json!({"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "What is in notes.txt?"}]}),
        json!({"kind": "response", "parts": [{"part_kind": "tool-call", "tool_call_id": "call_1",
               "tool_name": "read_file", "args": {"file_path": "notes.txt"}}]}),
        json!({"kind": "request", "parts": [{"part_kind": "tool-return", "tool_call_id": "call_1",
               "tool_name": "read_file", "content": "     1\tThe meeting is on Tuesday."}]}),
    ]);
    std::fs::write(&session_path, serde_json::to_string(&session).unwrap()).unwrap();
    let id = session["session_id"].as_str().unwrap().to_string();
    let (code, result) = run(
        &env,
        &server,
        &["--session", &id, "So, which day is the meeting?"],
    );
    assert!(code == 0 || code == 3, "exit {code}: {result}");
    assert!(
        !result["response"].as_str().unwrap_or("").trim().is_empty(),
        "{result}"
    );
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(&session_path).unwrap()).unwrap();
    let kinds: Vec<&str> = saved["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        &kinds[2..5],
        ["request", "response", "request"],
        "tool history kept"
    );
}
