//! End-to-end against the reference MCP servers from npm (2025-11-25 era), installed by
//! `scripts/setup-mcp-servers.sh` (`scripts/test.sh` runs it): `server-everything` over stdio and over
//! Streamable HTTP, and `server-filesystem`. Built with `--features real-server-tests`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{FakeProvider, TestEnv, Turn, npm_mcp_bin_dir};

const WAIT: Duration = Duration::from_secs(60);

fn servers(env: &TestEnv) -> Value {
    let bin = npm_mcp_bin_dir();
    json!({
        "everything": {"command": bin.join("mcp-server-everything"), "args": ["stdio"]},
        "filesystem": {"command": bin.join("mcp-server-filesystem"), "args": [env.workspace()]},
    })
}

fn write_config(env: &TestEnv, servers: Value) {
    std::fs::write(
        env.config_file(),
        json!({"mcpServers": servers}).to_string(),
    )
    .unwrap();
}

fn listed(env: &TestEnv) -> Value {
    let out = env
        .command(&bin())
        .args(["mcp", "list", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn server<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed: {list}"))
}

fn has_tool(server: &Value, tool: &str) -> bool {
    server["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t == tool)
}

#[test]
fn the_reference_servers_are_listed_and_their_tools_called_by_the_model() {
    let env = TestEnv::new().unwrap();
    std::fs::write(
        env.workspace().join("notes.txt"),
        "from the filesystem server\n",
    )
    .unwrap();
    write_config(&env, servers(&env));

    let list = listed(&env);
    let everything = server(&list, "everything");
    assert_eq!(everything["state"], "ready", "{list}");
    assert_eq!(everything["protocol"], "2025-11-25");
    assert!(
        has_tool(everything, "mcp__everything__echo"),
        "{everything}"
    );
    let filesystem = server(&list, "filesystem");
    assert_eq!(filesystem["state"], "ready", "{list}");
    assert!(
        has_tool(filesystem, "mcp__filesystem__read_text_file"),
        "{filesystem}"
    );

    let path = env.workspace().join("notes.txt");
    let read_args = json!({"path": path}).to_string();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("e1", "mcp__everything__echo", r#"{"message": "ping"}"#)]),
        Turn::tool_calls(&[("r1", "mcp__filesystem__read_text_file", read_args.as_str())]),
        Turn::text("done"),
    ]);
    let (mut child, mut reader) = spawn_stream(&env, &fake, "openai:test-model", &["--yes"]);
    for name in ["everything", "filesystem"] {
        let ready = format!("\"name\":\"{name}\",\"state\":\"ready\"");
        let seen = reader.seen.iter().any(|l| l.contains(&ready))
            || reader.wait_for(WAIT, |l| l.contains(&ready)).is_some();
        assert!(seen, "{name} never ready: {:#?}", reader.seen);
    }
    let mut stdin = child.stdin.take().unwrap();
    use std::io::Write;
    writeln!(
        stdin,
        "{}",
        json!({"type": "user_message", "text": "use both"})
    )
    .unwrap();
    drop(stdin);
    let run = finish(child, Some(reader));
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);

    let requests = fake.requests();
    let answer = |body: &Value, id: &str| -> String {
        messages(body)
            .iter()
            .find(|m| m["tool_call_id"] == id)
            .map(|m| m["content"].as_str().unwrap().to_string())
            .unwrap_or_default()
    };
    assert!(
        answer(&requests[1].body, "e1").contains("ping"),
        "{}",
        requests[1].body
    );
    assert_eq!(
        answer(&requests[2].body, "r1"),
        "from the filesystem server\n"
    );
}

/// `mcp-server-everything streamableHttp` on a free loopback port, once it says it listens.
fn start_http_server() -> (Child, u16) {
    for _ in 0..3 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut child = Command::new(npm_mcp_bin_dir().join("mcp-server-everything"))
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        loop {
            match rx.recv_timeout(WAIT) {
                Ok(line) if line.contains("listening on port") => return (child, port),
                Ok(line) if line.contains("already in use") => break,
                Ok(_) => continue,
                Err(_) => panic!("the HTTP server did not start"),
            }
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    panic!("no free port for the HTTP server after three tries")
}

struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_streamable_http_server_is_reached_by_its_url() {
    let (child, port) = start_http_server();
    let _server = KillOnDrop(child);
    let env = TestEnv::new().unwrap();
    write_config(
        &env,
        json!({"web": {"url": format!("http://127.0.0.1:{port}/mcp"),
                       "headers": {"X-Test": "${HOME}"}}}),
    );
    let list = listed(&env);
    let web = server(&list, "web");
    assert_eq!(web["state"], "ready", "{list}");
    assert!(has_tool(web, "mcp__web__echo"), "{web}");

    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("e1", "mcp__web__echo", r#"{"message": "over http"}"#)]),
        Turn::text("done"),
    ]);
    let (mut child, mut reader) = spawn_stream(&env, &fake, "openai:test-model", &["--yes"]);
    let ready = reader.wait_for(WAIT, |l| l.contains("\"name\":\"web\",\"state\":\"ready\""));
    assert!(ready.is_some(), "{:#?}", reader.seen);
    let mut stdin = child.stdin.take().unwrap();
    use std::io::Write;
    writeln!(stdin, "{}", json!({"type": "user_message", "text": "echo"})).unwrap();
    drop(stdin);
    let run = finish(child, Some(reader));
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);
    let second = &fake.requests()[1].body;
    let answered = messages(second)
        .iter()
        .any(|m| m["tool_call_id"] == "e1" && m["content"].as_str().unwrap().contains("over http"));
    assert!(answered, "{second}");
}
