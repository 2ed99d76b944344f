//! Tests of the `bash` tool.

use super::*;
use crate::testutil::{args, ctx};
use crate::tools::process::{HEAD_BYTES, TAIL_BYTES};
use nix::errno::Errno;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::json;
use std::path::Path;
use tunacode_protocol::OutputStream;

async fn run(tool: &Bash, dir: &Path, a: Value) -> Result<String, ToolError> {
    let ctx = ctx(dir);
    let fut = tool.call(args(a), &ctx);
    tokio::time::timeout(Duration::from_secs(30), fut)
        .await
        .expect("bash tool hung")
        .map(|o| o.content)
}

/// Whether the process is gone (or a zombie: PID 1 here may not reap orphans).
fn gone(pid: i32) -> bool {
    if kill(Pid::from_raw(pid), None) == Err(Errno::ESRCH) {
        return true;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| matches!(rest.trim_start().chars().next(), Some('Z' | 'X'))),
        Err(_) => true,
    }
}

async fn wait_gone(pid: i32) -> bool {
    for _ in 0..100 {
        if gone(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

fn read_pid(path: &Path) -> i32 {
    std::fs::read_to_string(path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn reports_exit_code_and_both_streams() {
    let dir = tempfile::tempdir().unwrap();
    let b = Bash::default();
    let out = run(
        &b,
        dir.path(),
        json!({"command": "echo out; echo err >&2; exit 3"}),
    )
    .await;
    assert_eq!(out.unwrap(), "exit code: 3\nstdout:\nout\nstderr:\nerr");
    let out = run(
        &b,
        dir.path(),
        json!({"command": "echo hi", "description": "greet"}),
    )
    .await;
    assert_eq!(out.unwrap(), "exit code: 0\nstdout:\nhi");
    let out = run(&b, dir.path(), json!({"command": "cat"})).await;
    assert_eq!(
        out.unwrap(),
        "exit code: 0\n(no output)",
        "stdin must be empty"
    );
    let out = run(&b, dir.path(), json!({"command": "kill -9 $$"})).await;
    assert_eq!(
        out.unwrap(),
        "exit code: none (terminated by signal 9)\n(no output)"
    );
}

#[tokio::test]
async fn runs_in_the_workspace_root() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&Bash::default(), dir.path(), json!({"command": "pwd -P"}))
        .await
        .unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    assert_eq!(out, format!("exit code: 0\nstdout:\n{}", root.display()));
}

#[tokio::test]
async fn keeps_head_and_tail_of_large_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        &Bash::default(),
        dir.path(),
        json!({"command": "seq 1 200000"}),
    )
    .await
    .unwrap();
    assert!(
        out.starts_with("exit code: 0\nstdout:\n1\n2\n3\n"),
        "{}",
        &out[..50]
    );
    assert!(out.ends_with("\n199999\n200000"));
    assert!(out.contains(" bytes omitted ..."));
    assert!(out.len() < HEAD_BYTES + TAIL_BYTES + 200, "{}", out.len());
}

#[tokio::test]
async fn timeout_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let cmd = "sleep 30 & echo $! > bg.pid; echo started; sleep 30";
    let out = run(
        &Bash::default(),
        dir.path(),
        json!({"command": cmd, "timeout": 2}),
    )
    .await
    .unwrap();
    assert!(
        out.starts_with("exit code: unknown\ntimed out after 2 s;"),
        "{out}"
    );
    assert!(out.ends_with("stdout:\nstarted"), "{out}");
    let pid = read_pid(&dir.path().join("bg.pid"));
    assert!(
        wait_gone(pid).await,
        "background child {pid} survived the timeout"
    );
}

#[tokio::test]
async fn cancel_kills_the_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ctx(dir.path());
    let cancel = ctx.cancel.clone();
    let started = dir.path().join("started");
    let watcher = tokio::spawn(async move {
        for _ in 0..200 {
            if started.exists() {
                cancel.cancel();
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    });
    let cmd = "sleep 30 & echo $! > bg.pid; touch started; wait";
    let tool = Bash::default();
    let fut = tool.call(args(json!({"command": cmd})), &ctx);
    let result = tokio::time::timeout(Duration::from_secs(20), fut)
        .await
        .expect("cancel ignored");
    assert!(watcher.await.unwrap(), "the command never started");
    assert_eq!(result, Err(ToolError::Cancelled));
    let pid = read_pid(&dir.path().join("bg.pid"));
    assert!(
        wait_gone(pid).await,
        "background child {pid} survived the cancel"
    );
}

#[tokio::test]
async fn background_process_holding_the_pipe_ends_with_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let tool = Bash {
        grace: Duration::from_secs(20),
    };
    let cmd = "sleep 30 & echo $! > bg.pid; echo done";
    let out = tokio::time::timeout(
        Duration::from_secs(10),
        run(&tool, dir.path(), json!({"command": cmd})),
    )
    .await
    .expect("the call ends when the command does, not after the grace period")
    .unwrap();
    assert_eq!(out, "exit code: 0\nstdout:\ndone");
    let pid = read_pid(&dir.path().join("bg.pid"));
    assert!(gone(pid), "background child {pid} outlived its call");
}

#[tokio::test]
async fn detached_processes_end_with_their_command() {
    let dir = tempfile::tempdir().unwrap();
    // Every way out of the command's process group and session: none outlives the call.
    let cmd = "sleep 30 >/dev/null 2>&1 & echo $! > bg.pid; \
               setsid sh -c 'echo $$ > setsid.pid; exec sleep 30' >/dev/null 2>&1 & \
               nohup sh -c 'echo $$ > nohup.pid; exec sleep 30' >/dev/null 2>&1 & \
               sh -c '(sh -c \"echo \\$\\$ > double.pid; exec sleep 30\" &)' >/dev/null 2>&1; \
               while [ ! -s setsid.pid ] || [ ! -s nohup.pid ] || [ ! -s double.pid ]; do :; done";
    let out = run(&Bash::default(), dir.path(), json!({"command": cmd}))
        .await
        .unwrap();
    assert_eq!(out, "exit code: 0\n(no output)");
    for file in ["bg.pid", "setsid.pid", "nohup.pid", "double.pid"] {
        let pid = read_pid(&dir.path().join(file));
        let alive = !gone(pid);
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        assert!(!alive, "{file}: process {pid} outlived its call");
    }
}

#[tokio::test]
async fn preview_shows_the_command_and_bad_arguments_are_retries() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ctx(dir.path());
    let preview = Bash::default()
        .preview(&args(json!({"command": "ls -la"})), &ctx)
        .await;
    assert_eq!(preview.unwrap(), Some("ls -la".to_string()));
    let err = run(&Bash::default(), dir.path(), json!({"command": "  "}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Retry(m) if m.contains("empty")));
    let err = run(
        &Bash::default(),
        dir.path(),
        json!({"command": "ls", "timeout": "5"}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, ToolError::Retry(m) if m.contains("`timeout`")));
}

#[test]
fn known_read_only_command_lines_classify_as_reads() {
    let classify = |cmd: &str| {
        let args = json!({ "command": cmd });
        Bash::default().classify(args.as_object().unwrap())
    };
    assert_eq!(classify("ls -la | wc -l"), ToolKind::ReadOnly);
    assert_eq!(classify("git status && git diff"), ToolKind::ReadOnly);
    assert_eq!(classify("ls > listing.txt"), ToolKind::Execute);
    assert_eq!(classify("cat a | sh"), ToolKind::Execute);
    assert_eq!(classify("rm -rf build"), ToolKind::Execute);
    assert_eq!(
        Bash::default().classify(json!({}).as_object().unwrap()),
        ToolKind::Execute
    );
}

#[tokio::test]
async fn output_reaches_the_sink_while_the_command_still_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut ctx = ctx(dir.path());
    ctx.output = Some(crate::live::ToolOutputSink::new(move |stream, text| {
        let _ = tx.send((stream, text.to_string()));
    }));
    // The command waits for a file only the test makes once it has seen the first line.
    let cmd = "echo one; echo warn >&2; while [ ! -e go ]; do sleep 0.02; done; echo two";
    let call = tokio::spawn(async move {
        Bash::default()
            .call(args(json!({"command": cmd})), &ctx)
            .await
            .map(|o| o.content)
    });
    let mut seen = Vec::new();
    while !(seen.contains(&(OutputStream::Stdout, "one\n".to_string()))
        && seen.contains(&(OutputStream::Stderr, "warn\n".to_string())))
    {
        let next = tokio::time::timeout(Duration::from_secs(20), rx.recv()).await;
        seen.push(next.expect("no live output").expect("sink dropped"));
    }
    assert!(!call.is_finished(), "the command is still waiting");
    std::fs::write(dir.path().join("go"), "").unwrap();
    let out = tokio::time::timeout(Duration::from_secs(20), call)
        .await
        .expect("the command ends")
        .unwrap()
        .unwrap();
    assert!(
        out.contains("one\ntwo"),
        "the result still has everything: {out}"
    );
    let next = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await;
    assert_eq!(
        next.unwrap(),
        Some((OutputStream::Stdout, "two\n".to_string()))
    );
}
