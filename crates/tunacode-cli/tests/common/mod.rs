//! Helpers for the end-to-end tests: run the real `tunacode` binary against a fake provider.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(dead_code)]

use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::Value;
use tunacode_testkit::{FakeProvider, LineReader, TestEnv, wait_with_timeout};

/// Upper bound for one run of the binary in a test (a hang fails the test instead of blocking CI).
pub const RUN_LIMIT: Duration = Duration::from_secs(60);

/// The binary under test.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tunacode"))
}

/// Starts `args` (a shell-quoted argument string) with the real binary in a tmux window of
/// `width`×`height`, with the test's private home and no provider variables from outside.
pub fn tmux_start(env: &TestEnv, args: &str, width: u16, height: u16) -> tunacode_testkit::Tmux {
    tmux_start_with(env, &[], args, (width, height))
}

/// [`tmux_start`] with more environment variables.
pub fn tmux_start_with(
    env: &TestEnv,
    extra: &[(&str, &str)],
    args: &str,
    (width, height): (u16, u16),
) -> tunacode_testkit::Tmux {
    let dir = env.workspace();
    let home = dir.parent().unwrap().to_path_buf();
    let vars = [
        ("HOME", home.display().to_string()),
        ("XDG_CONFIG_HOME", home.join("config").display().to_string()),
        ("XDG_DATA_HOME", home.join("data").display().to_string()),
        ("XDG_STATE_HOME", home.join("state").display().to_string()),
        ("TERM", "xterm-256color".to_string()),
    ];
    let mut vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    vars.extend_from_slice(extra);
    let command = format!(
        "env -u OPENAI_API_KEY -u TUNACODE_MODEL -u TUNACODE_BASE_URL -u NO_COLOR {} {args}",
        bin().display()
    );
    tunacode_testkit::Tmux::start(&command, width, height, &vars, &dir).unwrap()
}

/// `tunacode sessions --json` in `env`, parsed.
pub fn list_sessions(env: &TestEnv) -> Value {
    let out = env
        .command(&bin())
        .args(["sessions", "--json"])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

/// The outcome of one run.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// stdout parsed as JSON lines (stream-json runs).
    pub events: Vec<Value>,
}

impl Run {
    pub fn of_type(&self, ty: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["type"] == ty).collect()
    }

    pub fn result(&self) -> &Value {
        self.events
            .last()
            .filter(|e| e["type"] == "result")
            .unwrap_or_else(|| {
                panic!(
                    "no result line; stdout: {}\nstderr: {}",
                    self.stdout, self.stderr
                )
            })
    }
}

/// Starts `tunacode run --output stream-json` against `fake` with extra arguments.
pub fn spawn(env: &TestEnv, fake: &FakeProvider, extra: &[&str], envs: &[(&str, &str)]) -> Child {
    let mut cmd = env.command(&bin());
    cmd.args([
        "run",
        "--model",
        "openai:test-model",
        "--base-url",
        &fake.base_url(),
    ])
    .args(["--output", "stream-json"])
    .args(extra)
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.spawn().expect("spawn tunacode")
}

/// Starts `tunacode run --input-format stream-json --output stream-json` with `model` against `fake`
/// (an Anthropic model gets a key), stdin piped for the script's lines; the child and its stdout.
pub fn spawn_stream(
    env: &TestEnv,
    fake: &FakeProvider,
    model: &str,
    extra: &[&str],
) -> (Child, LineReader) {
    let mut child = env
        .command(&bin())
        .args(["run", "--model", model, "--base-url"])
        .arg(fake.base_url())
        .env("ANTHROPIC_API_KEY", "test-key")
        .args(["--input-format", "stream-json", "--output", "stream-json"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tunacode");
    let reader = LineReader::new(child.stdout.take().expect("stdout"));
    (child, reader)
}

/// Runs a stream-json session of `lines` on `openai:test-model` against `fake`, to its end.
pub fn stream_session(env: &TestEnv, fake: &FakeProvider, lines: &[Value]) -> Run {
    use std::io::Write;
    let (mut child, reader) = spawn_stream(env, fake, "openai:test-model", &[]);
    let mut stdin = child.stdin.take().expect("stdin");
    for line in lines {
        writeln!(stdin, "{line}").expect("write a line");
    }
    drop(stdin);
    finish(child, Some(reader))
}

/// Writes one stream-json line to a running session.
pub fn send_line(stdin: &mut std::process::ChildStdin, line: Value) {
    use std::io::Write;
    writeln!(stdin, "{line}").expect("write a line");
    stdin.flush().expect("flush");
}

/// Waits (30 s at most) for the next line of type `ty` and returns it parsed.
pub fn next_of(reader: &mut LineReader, ty: &str) -> Value {
    let pattern = format!("\"type\":\"{ty}\"");
    let line = reader
        .wait_for(Duration::from_secs(30), |l| l.contains(&pattern))
        .unwrap_or_else(|| panic!("no {ty} line; seen: {:#?}", reader.seen));
    serde_json::from_str(&line).expect("a JSON line")
}

/// Waits for a spawned run to end and collects its output.
pub fn finish(mut child: Child, mut reader: Option<LineReader>) -> Run {
    let mut stderr_pipe = child.stderr.take().expect("stderr");
    let stderr_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr_pipe.read_to_string(&mut s);
        s
    });
    let mut reader = reader
        .take()
        .unwrap_or_else(|| LineReader::new(child.stdout.take().expect("stdout")));
    let status = wait_with_timeout(&mut child, RUN_LIMIT).expect("tunacode did not exit in time");
    let lines = reader.read_to_end(Duration::from_secs(5)).to_vec();
    let stderr = stderr_thread.join().unwrap_or_default();
    let events = lines
        .iter()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    Run {
        code: status.code().unwrap_or(-1),
        stdout: lines.join("\n"),
        stderr,
        events,
    }
}

/// Runs to the end.
pub fn run(env: &TestEnv, fake: &FakeProvider, extra: &[&str]) -> Run {
    finish(spawn(env, fake, extra, &[]), None)
}

/// Runs to the end with extra environment variables.
pub fn run_with_env(
    env: &TestEnv,
    fake: &FakeProvider,
    extra: &[&str],
    envs: &[(&str, &str)],
) -> Run {
    finish(spawn(env, fake, extra, envs), None)
}

/// The chat messages of a recorded request.
pub fn messages(body: &Value) -> Vec<Value> {
    body["messages"].as_array().cloned().unwrap_or_default()
}

/// Checks the invariant every request must satisfy: each assistant tool call is answered by a `tool`
/// message before the next assistant or user message, and no tool message is orphaned.
pub fn assert_tool_pairing(body: &Value) {
    let msgs = messages(body);
    let mut open: Vec<String> = Vec::new();
    for m in &msgs {
        match m["role"].as_str().unwrap_or("") {
            "assistant" => {
                assert!(open.is_empty(), "unanswered tool calls {open:?} in {body}");
                open = m["tool_calls"]
                    .as_array()
                    .map(|c| {
                        c.iter()
                            .map(|c| c["id"].as_str().unwrap_or("").to_string())
                            .collect()
                    })
                    .unwrap_or_default();
            }
            "tool" => {
                let id = m["tool_call_id"].as_str().unwrap_or("");
                let pos = open.iter().position(|o| o == id);
                assert!(pos.is_some(), "orphaned tool answer {id} in {body}");
                open.remove(pos.unwrap_or(0));
            }
            _ => assert!(open.is_empty(), "unanswered tool calls {open:?} in {body}"),
        }
    }
}

/// Checks the outcome of the shared multi-step task (list → read notes.txt → write out/summary.txt →
/// done): the file written, the result line (with the session's input tokens), and the three tools
/// finished in order.
pub fn assert_summary_task_done(env: &tunacode_testkit::TestEnv, run: &Run, request_tokens: u64) {
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("out/summary.txt")).unwrap(),
        "2 lines: alpha, beta\n"
    );
    let result = run.result();
    assert_eq!(result["status"], "completed");
    assert_eq!(result["iterations"], 4);
    assert_eq!(result["response"], "Wrote out/summary.txt.");
    assert_eq!(result["usage"]["request_tokens"], request_tokens);
    let finished: Vec<(&str, &str)> = run
        .of_type("tool_call_finished")
        .iter()
        .map(|e| {
            (
                e["tool_name"].as_str().unwrap(),
                e["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        finished,
        [
            ("list_dir", "completed"),
            ("read_file", "completed"),
            ("write_file", "completed")
        ]
    );
}

/// Writes a config whose default model is `local:test-model` on `fake` (as the UI is started), with
/// the keys of `extra` (a JSON object) added.
pub fn write_local_config(env: &TestEnv, fake: &FakeProvider, extra: Value) {
    let mut config = serde_json::json!({
        "default_model": "local:test-model",
        "providers": {"local": {"base_url": fake.base_url(), "wire_api": "openai-chat"}}
    });
    if let (Some(config), Value::Object(extra)) = (config.as_object_mut(), extra) {
        config.extend(extra);
    }
    std::fs::write(env.config_file(), config.to_string()).unwrap();
}

/// The shared edit task: a write, an update and a `sed -i`, each through a different tool, then an
/// answer (`a.txt` holds `alpha`, `b.txt` holds `beta` before it).
pub fn edit_turns() -> Vec<tunacode_testkit::Turn> {
    use tunacode_testkit::Turn;
    vec![
        Turn::tool_calls(&[(
            "w",
            "write_file",
            r#"{"file_path": "new.txt", "content": "fresh\n"}"#,
        )]),
        Turn::tool_calls(&[(
            "u",
            "update_file",
            r#"{"file_path": "a.txt", "target": "alpha", "replacement": "ALPHA"}"#,
        )]),
        Turn::tool_calls(&[("s", "bash", r#"{"command": "sed -i s/beta/BETA/ b.txt"}"#)]),
        Turn::text("Edited three files."),
    ]
}

/// The text the model got back for tool call `id` (in any later request to `fake`).
pub fn answer(fake: &FakeProvider, id: &str) -> String {
    fake.requests()
        .iter()
        .flat_map(|r| messages(&r.body))
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .unwrap_or_else(|| panic!("no answer to {id}"))
}

/// Waits until a process with `marker` in its command line runs (`want`) or none does; whether that
/// came before `timeout`. (The UI may show a command before its process is spawned, and its end
/// before the process is reaped.)
pub fn wait_running(marker: &str, want: bool, timeout: Duration) -> bool {
    let deadline = std::time::Instant::now() + timeout;
    while running(marker) != want {
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// Whether any process on the machine has `marker` in its command line.
pub fn running(marker: &str) -> bool {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .any(|cmdline| String::from_utf8_lossy(&cmdline).contains(marker))
}

/// The four wire formats, by the name `--wire-api` takes.
pub fn wire_formats() -> Vec<(
    &'static str,
    std::sync::Arc<dyn tunacode_testkit::WireFormat>,
)> {
    use tunacode_testkit::{AnthropicMessages, Gemini, OpenAiChat, OpenAiResponses};
    vec![
        ("openai-chat", std::sync::Arc::new(OpenAiChat)),
        ("openai-responses", std::sync::Arc::new(OpenAiResponses)),
        ("anthropic", std::sync::Arc::new(AnthropicMessages)),
        ("gemini", std::sync::Arc::new(Gemini)),
    ]
}

/// Runs `tunacode run --output stream-json` on `custom:test-model` against `fake` speaking `wire`,
/// with extra arguments (the prompt among them), to the end.
pub fn run_on_wire(env: &TestEnv, fake: &FakeProvider, wire: &str, extra: &[&str]) -> Run {
    let mut cmd = env.command(&bin());
    cmd.args(["run", "--model", "custom:test-model", "--base-url"])
        .arg(fake.base_url())
        .args(["--wire-api", wire, "--output", "stream-json"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    finish(cmd.spawn().expect("spawn tunacode"), None)
}

/// Text every sub-agent's request holds (its system prompt says it is one), and no parent's.
pub const SUBAGENT: &str = "You are a sub-agent";

/// A fake-provider route for the sub-agent whose requests also hold `marker` (its prompt's).
pub fn subagent_route(marker: &str, turns: Vec<tunacode_testkit::Turn>) -> tunacode_testkit::Route {
    tunacode_testkit::Route {
        markers: vec![SUBAGENT.into(), marker.into()],
        turns,
    }
}

/// `git` in `dir` with an identity and no signing; its output (a failure fails the test).
pub fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
