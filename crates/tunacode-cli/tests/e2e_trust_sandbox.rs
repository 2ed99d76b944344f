//! End-to-end: the command sandbox tried as an attacker would, with the real binary and the fake
//! provider — a command that pushes `y` into the terminal to answer the next approval (under a pty
//! for `run`, under tmux for the TUI), commands that read the agent's key from `/proc` or its config,
//! processes that try to outlive `run`, Unix-socket connections to listeners outside, signals to the
//! user's other processes, and writes to git hooks and `.mcp.json` through the shell; and a killed
//! agent takes its commands with it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::path::PathBuf;
use std::time::Duration;

use common::*;
use serde_json::json;
use tunacode_testkit::{FakeProvider, TestEnv, Turn};

const WAIT: Duration = Duration::from_secs(30);

/// Tries `TIOCSTI` on every terminal it can name: `INJECTED` is printed for each that took the keys.
/// The repository ships it (an attacker's repository would).
const INJECT_PY: &str = r#"import fcntl, glob, os, termios
for target in [0, 1, 2, "/dev/tty"] + sorted(glob.glob("/dev/pts/[0-9]*")):
    try:
        fd = target if isinstance(target, int) else os.open(target, os.O_RDWR)
        for c in b"y\n":
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))
        print(target, "INJECTED")
    except OSError as e:
        print(target, "refused:", e.strerror)
"#;

/// Runs the injector now and, in the background, for five seconds after the call.
const INJECTOR: &str = "python3 inject.py; \
    (for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.5; python3 inject.py; done) >/dev/null 2>&1 & \
    echo injector started";

/// Puts the injector in the workspace.
fn ship_injector(env: &TestEnv) {
    std::fs::write(env.workspace().join("inject.py"), INJECT_PY).unwrap();
}

fn bash(id: &str, command: &str) -> Turn {
    let args = json!({"command": command}).to_string();
    Turn::tool_calls(&[(id, "bash", args.as_str())])
}

fn bash_outside(id: &str, command: &str) -> Turn {
    let args = json!({"command": command, "outside_sandbox": true}).to_string();
    Turn::tool_calls(&[(id, "bash", args.as_str())])
}

/// A path outside the workspace and the temp dir.
fn outside_path(env: &TestEnv, name: &str) -> PathBuf {
    let dir = env
        .workspace()
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_owned();
    PathBuf::from("/var/tmp").join(format!("{}-{name}", dir.to_string_lossy()))
}

fn assert_injection_refused(out: &str) {
    assert!(out.contains("injector started"), "the attack ran: {out}");
    assert!(out.contains("refused:"), "{out}");
    assert!(
        !out.contains("INJECTED"),
        "a terminal took forged keys: {out}"
    );
}

#[test]
fn a_command_cannot_type_the_answer_to_run_s_terminal_prompt() {
    let env = TestEnv::new().unwrap();
    let target = outside_path(&env, "pwned-run");
    ship_injector(&env);
    let fake = FakeProvider::start(vec![
        bash("inject", INJECTOR),
        bash_outside("escape", &format!("echo pwned > {}", target.display())),
        Turn::text("done"),
    ]);
    let args = format!(
        "run --yes --model openai:test-model --base-url {} 'do it'",
        fake.base_url()
    );
    let tmux = common::tmux_start(&env, &args, 120, 40);
    tmux.wait_for_text("Allow this once?", WAIT).unwrap();
    tmux.type_text("n").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    assert_eq!(
        tmux.wait_exit(WAIT).unwrap(),
        0,
        "{}",
        tmux.screen().unwrap()
    );
    assert!(
        !target.exists(),
        "the forged yes ran the command outside the sandbox"
    );
    assert_injection_refused(&answer(&fake, "inject"));
    assert!(
        answer(&fake, "escape").contains("declined"),
        "{}",
        answer(&fake, "escape")
    );
}

#[test]
fn a_command_cannot_type_the_answer_to_the_ui_s_approval_dialog() {
    let env = TestEnv::new().unwrap();
    let target = outside_path(&env, "pwned-ui");
    ship_injector(&env);
    let fake = FakeProvider::start(vec![
        bash("inject", INJECTOR),
        bash_outside("escape", &format!("echo pwned > {}", target.display())),
        Turn::text("Stopped here."),
    ]);
    common::write_local_config(&env, &fake, json!({}));
    let tmux = common::tmux_start(&env, "", 120, 40);
    tmux.wait_for_text("local:test-model", WAIT).unwrap();
    tmux.type_text("/yolo").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("YOLO on", WAIT).unwrap();
    tmux.type_text("do it").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("Allow bash?", WAIT).unwrap();
    assert!(!target.exists(), "the dialog was answered by forged keys");
    // `n` opens the note to the agent; Enter sends the refusal.
    tmux.type_text("n").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    if tmux.wait_for_text("Stopped here.", WAIT).is_err() {
        panic!("{}", tmux.screen().unwrap());
    }
    assert!(!target.exists());
    assert_injection_refused(&answer(&fake, "inject"));
    tmux.keys(&["C-c", "C-c"]).unwrap();
    assert_eq!(tmux.wait_exit(WAIT).unwrap(), 0);
}

#[test]
fn commands_cannot_read_the_agent_s_key_from_proc_or_its_config() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        bash(
            "proc",
            "grep -a -o 'sk-[A-Za-z0-9-]*' /proc/*/environ; echo searched",
        ),
        bash(
            "config",
            &format!("cat {}; echo read", env.config_file().display()),
        ),
        Turn::text("done"),
    ]);
    std::fs::write(
        env.config_file(),
        json!({"env": {"SOME_OTHER_KEY": "sk-config-marker-777"}}).to_string(),
    )
    .unwrap();
    let run = run_with_env(
        &env,
        &fake,
        &["--yes", "find keys"],
        &[("OPENAI_API_KEY", "sk-agent-marker-555")],
    );
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);
    assert!(answer(&fake, "proc").contains("searched"));
    assert!(answer(&fake, "config").contains("read"));
    for request in fake.requests() {
        let body = request.body.to_string();
        assert!(
            !body.contains("sk-agent-marker-555"),
            "the key reached the model: {body}"
        );
        assert!(
            !body.contains("sk-config-marker-777"),
            "the config reached the model: {body}"
        );
    }
    let session = env.only_session().to_string();
    assert!(!session.contains("marker-555") && !session.contains("marker-777"));
}

#[test]
fn nothing_a_command_started_runs_after_run_exits() {
    let env = TestEnv::new().unwrap();
    let marker = format!("300.{}7", std::process::id());
    let late = env.workspace().join("late.txt");
    let fake = FakeProvider::start(vec![
        bash(
            "spawn",
            &format!(
                "sleep {marker} & setsid sleep {marker} & nohup sleep {marker} >/dev/null 2>&1 & \
                 (sh -c 'sleep {marker}; echo late > late.txt' &) ; echo spawned"
            ),
        ),
        Turn::text("done"),
    ]);
    let run = run(&env, &fake, &["--yes", "start servers"]);
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);
    assert!(answer(&fake, "spawn").contains("spawned"));
    assert!(!running(&marker), "a process of the command outlived run");
    assert!(!late.exists());
}

#[test]
fn commands_reach_no_unix_socket_and_signal_no_process_outside() {
    let env = TestEnv::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent.sock");
    let listener = UnixListener::bind(&path).unwrap();
    let name = format!("tunacode-test-{}", std::process::id());
    let abstract_listener =
        UnixListener::bind_addr(&SocketAddr::from_abstract_name(name.as_bytes()).unwrap()).unwrap();
    let mut victim = std::process::Command::new("sleep")
        .arg("300")
        .spawn()
        .unwrap();
    let connect = "import socket, sys\n\
                   s = socket.socket(socket.AF_UNIX)\n\
                   s.connect(sys.argv[1].replace('@', '\\0', 1))\n\
                   print('CONNECTED')\n";
    std::fs::write(env.workspace().join("connect.py"), connect).unwrap();
    let fake = FakeProvider::start(vec![
        bash("path", &format!("python3 connect.py {}", path.display())),
        bash("abstract", &format!("python3 connect.py @{name}")),
        bash("kill", &format!("kill -9 {}; echo tried", victim.id())),
        Turn::text("done"),
    ]);
    let run = run(&env, &fake, &["--yes", "connect"]);
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);
    for id in ["path", "abstract"] {
        let out = answer(&fake, id);
        assert!(!out.contains("CONNECTED"), "{id}: {out}");
        assert!(out.contains("PermissionError"), "{id}: {out}");
    }
    for l in [&listener, &abstract_listener] {
        l.set_nonblocking(true).unwrap();
        assert!(l.accept().is_err(), "a connection reached the listener");
    }
    assert!(answer(&fake, "kill").contains("tried"));
    assert!(
        victim.try_wait().unwrap().is_none(),
        "the user's process was killed"
    );
    victim.kill().unwrap();
}

#[test]
fn the_shell_cannot_plant_git_hooks_or_project_agent_settings() {
    let env = TestEnv::new().unwrap();
    let ws = env.workspace();
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&ws)
        .status()
        .unwrap();
    assert!(git.success());
    // A script the repository ships does the planting, so the shell analysis has nothing to see:
    // the sandbox alone must hold.
    let plant = "printf '#!/bin/sh\\necho owned\\n' > .git/hooks/pre-commit && echo HOOK-WRITTEN\n\
                 git config core.hooksPath /tmp && echo CONFIG-WRITTEN\n\
                 echo '{\"mcpServers\": {}}' > .mcp.json\n\
                 mkdir -p .tunacode/commands && echo hi > .tunacode/commands/x.md\n\
                 echo ../evil > .git/commondir\n\
                 mv .git .git2 && echo MOVED\n\
                 echo planted\n";
    std::fs::write(ws.join("plant.sh"), plant).unwrap();
    let fake = FakeProvider::start(vec![bash("plant", "sh plant.sh"), Turn::text("done")]);
    let run = run(&env, &fake, &["--yes", "plant"]);
    assert_eq!(run.result()["status"], "answered", "{}", run.stderr);
    let out = answer(&fake, "plant");
    assert!(out.contains("planted"), "the script ran: {out}");
    assert!(out.contains("Read-only file system"), "{out}");
    assert!(
        !out.contains("HOOK-WRITTEN") && !out.contains("CONFIG-WRITTEN") && !out.contains("MOVED"),
        "{out}"
    );
    assert!(!ws.join(".git/commondir").exists(), "{out}");
    assert!(
        ws.join(".git/HEAD").exists(),
        "the repository stayed: {out}"
    );
    assert!(!ws.join(".git/hooks/pre-commit").exists());
    let config = std::fs::read_to_string(ws.join(".git/config")).unwrap();
    assert!(!config.contains("hooksPath"), "{config}");
    assert!(!ws.join(".mcp.json").exists());
    assert!(!ws.join(".tunacode").exists());
    assert!(
        out.contains("set aside") && out.contains(".mcp.json"),
        "the model is told: {out}"
    );
}

#[test]
fn stream_json_says_which_guards_this_kernel_enforces() {
    use std::io::Write;
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("unused")]);
    let (mut child, reader) = spawn_stream(&env, &fake, "openai:test-model", &[]);
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, r#"{{"type":"permissions"}}"#).unwrap();
    drop(stdin);
    let run = finish(child, Some(reader));
    let lines = run.of_type("permissions");
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    let text = lines[0]["text"].as_str().unwrap();
    for guard in [
        "[yes] typing into the user's terminal (TIOCSTI)",
        "[yes] processes outliving their call: PID namespace",
        "[yes] seeing other processes (/proc/<pid>/environ) and signalling them",
        "[yes] changing git hooks and config",
        "[yes] Unix sockets",
    ] {
        assert!(text.contains(guard), "{guard}: {text}");
    }
    assert!(fake.requests().is_empty(), "no model call for it");
}

#[test]
fn a_killed_agent_takes_its_commands_with_it() {
    let env = TestEnv::new().unwrap();
    let marker = format!("300.{}9", std::process::id());
    let fake = FakeProvider::start(vec![
        bash(
            "long",
            &format!(
                "setsid sleep {marker} & nohup sleep {marker} >/dev/null 2>&1 & sleep {marker}"
            ),
        ),
        Turn::text("never reached"),
    ]);
    let mut child = spawn(&env, &fake, &["--yes", "serve"], &[]);
    let deadline = std::time::Instant::now() + WAIT;
    while !running(&marker) {
        assert!(
            std::time::Instant::now() < deadline,
            "the command never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while running(&marker) {
        assert!(
            std::time::Instant::now() < deadline,
            "a command's process outlived the killed agent"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}
