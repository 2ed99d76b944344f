//! A stdio server's process: started in a process group of its own (so a server that runs helpers, as
//! `npx` does, is stopped whole), its stderr kept (the last lines explain a crash at start), and stopped
//! the way the issue asks: stdin closed first, then SIGTERM, then SIGKILL to the group.

use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// How much of a server's stderr is kept for error messages.
const STDERR_TAIL: usize = 2048;

/// A running server process.
#[derive(Debug)]
pub(crate) struct ServerProcess {
    child: Child,
    /// The task reading stderr; it ends at the pipe's end.
    stderr_reader: Option<tokio::task::JoinHandle<()>>,
    /// The group id: the leader's pid, kept after the leader is reaped.
    group: Option<i32>,
    stderr: Arc<Mutex<String>>,
}

/// The pipes the protocol runs over.
pub(crate) type Pipes = (ChildStdout, ChildStdin);

/// Starts `command args` in `cwd` with `env` added to `base_env` (the environment commands get, the
/// agent's secrets left out) or, without one, to the inherited environment.
pub(crate) fn spawn(
    command: &str,
    args: &[String],
    base_env: Option<&[(std::ffi::OsString, std::ffi::OsString)]>,
    env: &[(String, String)],
    cwd: &Path,
    server: &str,
) -> Result<(ServerProcess, Pipes), String> {
    let mut cmd = Command::new(command);
    if let Some(base) = base_env {
        cmd.env_clear().envs(base.iter().map(|(k, v)| (k, v)));
    }
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("could not start `{command}`: {e}"))?;
    let (Some(stdout), Some(stdin), Some(stderr)) =
        (child.stdout.take(), child.stdin.take(), child.stderr.take())
    else {
        return Err(format!("`{command}` started without its pipes"));
    };
    let tail = Arc::new(Mutex::new(String::new()));
    let reader = tokio::spawn(keep_stderr(stderr, tail.clone(), server.to_string()));
    Ok((
        ServerProcess {
            group: child.id().and_then(|id| i32::try_from(id).ok()),
            child,
            stderr_reader: Some(reader),
            stderr: tail,
        },
        (stdout, stdin),
    ))
}

/// Logs a server's stderr line by line and keeps its end.
async fn keep_stderr(
    stderr: tokio::process::ChildStderr,
    tail: Arc<Mutex<String>>,
    server: String,
) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::debug!(target: "mcp", server = %server, "stderr: {line}");
        let Ok(mut kept) = tail.lock() else { return };
        kept.push_str(&line);
        kept.push('\n');
        if kept.len() > STDERR_TAIL {
            let mut cut = kept.len() - STDERR_TAIL;
            while !kept.is_char_boundary(cut) {
                cut += 1;
            }
            kept.drain(..cut);
        }
    }
}

impl ServerProcess {
    /// The last lines the server wrote to stderr, trimmed.
    pub(crate) fn stderr_tail(&self) -> String {
        self.stderr
            .lock()
            .map(|s| s.trim().to_string())
            .unwrap_or_default()
    }

    /// How the process exited, if it does within `wait`; once it has, its stderr is read to the end.
    pub(crate) async fn exited_within(
        &mut self,
        wait: Duration,
    ) -> Option<std::process::ExitStatus> {
        let status = tokio::time::timeout(wait, self.child.wait())
            .await
            .ok()
            .and_then(Result::ok)?;
        if let Some(reader) = self.stderr_reader.take() {
            // Helpers of the server may hold the pipe open: read what is there, not forever.
            let _ = tokio::time::timeout(wait, reader).await;
        }
        Some(status)
    }

    /// Resolves when the process exits.
    pub(crate) async fn wait(&mut self) {
        let _ = self.child.wait().await;
    }

    /// Waits for the process to exit on its own (its stdin already closed) for `grace`, then sends
    /// SIGTERM to its group and waits `grace` again, then SIGKILL.
    pub(crate) async fn stop(mut self, grace: Duration) {
        if !self.wait_for(grace).await {
            self.kill_group(Signal::SIGTERM);
            if !self.wait_for(grace).await {
                self.kill_group(Signal::SIGKILL);
                let _ = self.child.wait().await;
            }
        }
        // Helpers the leader left behind go too; then the group is done with.
        self.kill_group(Signal::SIGKILL);
        self.group = None;
    }

    /// Waits up to `grace` for the leader to exit; whether it did.
    async fn wait_for(&mut self, grace: Duration) -> bool {
        tokio::time::timeout(grace, self.child.wait()).await.is_ok()
    }

    /// Signals the whole group (helpers the server started included). The kernel keeps a group's id
    /// from being reused while any member lives, so this reaches exactly the helpers left behind.
    fn kill_group(&self, signal: Signal) {
        if let Some(group) = self.group {
            let _ = killpg(Pid::from_raw(group), signal);
        }
    }
}
