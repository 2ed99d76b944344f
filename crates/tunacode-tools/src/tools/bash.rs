//! `bash`: runs a shell command in its own process group, with a timeout, cancellation and capped output.

use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::task::JoinHandle;

use crate::args::parse;
use crate::tool::{Tool, ToolContext, ToolError, ToolKind, ToolOutput};
use crate::truncate::HeadTail;

const NAME: &str = "bash";
/// Timeout when none is given, in seconds.
const DEFAULT_TIMEOUT_SECS: u64 = 120;
/// Longest timeout allowed, in seconds.
const MAX_TIMEOUT_SECS: u64 = 600;
/// Bytes kept from the start and from the end of each stream.
const HEAD_BYTES: usize = 15 * 1024;
const TAIL_BYTES: usize = 15 * 1024;
/// How long to wait for the pipes to close after the group was killed.
const DRAIN_AFTER_KILL: Duration = Duration::from_secs(1);

/// Runs `bash -c <command>` in the workspace root.
#[derive(Debug, Clone)]
pub struct Bash {
    /// How long to keep reading after the command exits while background processes hold its output open.
    grace: Duration,
}

impl Default for Bash {
    fn default() -> Self {
        Bash {
            grace: Duration::from_secs(2),
        }
    }
}

#[derive(Deserialize)]
struct Args {
    command: String,
    timeout: Option<u64>,
    /// Accepted for the user's benefit; not used.
    #[serde(rename = "description")]
    _description: Option<String>,
}

/// Kills the whole process group when dropped while armed (e.g. when the call's future is dropped).
struct GroupGuard {
    pgid: Pid,
    armed: bool,
}

impl GroupGuard {
    fn kill(&mut self) {
        let _ = killpg(self.pgid, Signal::SIGKILL);
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            self.kill();
        }
    }
}

type Capture = Arc<Mutex<HeadTail>>;

fn new_capture() -> Capture {
    Arc::new(Mutex::new(HeadTail::new(HEAD_BYTES, TAIL_BYTES)))
}

/// Copies a stream into its capture until EOF.
fn pump<R: AsyncRead + Unpin + Send + 'static>(mut reader: R, capture: Capture) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            match reader.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => capture
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(&buf[..n]),
            }
        }
    })
}

/// Waits (at most `limit`) for both pumps to finish; aborts them otherwise. Returns whether they finished.
async fn drain(pumps: &mut [JoinHandle<()>; 2], limit: Duration) -> bool {
    let finished = tokio::time::timeout(limit, async {
        for pump in pumps.iter_mut() {
            let _ = pump.await;
        }
    })
    .await
    .is_ok();
    if !finished {
        pumps.iter().for_each(JoinHandle::abort);
    }
    finished
}

fn render(head: &[String], out: &Capture, err: &Capture) -> String {
    let mut text = head.join("\n");
    for (name, capture) in [("stdout", out), ("stderr", err)] {
        let capture = capture.lock().unwrap_or_else(|e| e.into_inner());
        if capture.total() == 0 {
            continue;
        }
        let body = capture.render();
        text.push_str(&format!("\n{name}:\n{}", body.trim_end_matches('\n')));
    }
    if out.lock().unwrap_or_else(|e| e.into_inner()).total() == 0
        && err.lock().unwrap_or_else(|e| e.into_inner()).total() == 0
    {
        text.push_str("\n(no output)");
    }
    text
}

fn exit_line(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code: {code}"),
        (None, Some(signal)) => format!("exit code: none (terminated by signal {signal})"),
        (None, None) => "exit code: unknown".into(),
    }
}

enum Outcome {
    Exited(std::io::Result<ExitStatus>),
    TimedOut,
    Cancelled,
}

#[async_trait]
impl Tool for Bash {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        "Run a shell command with `bash -c` in the workspace root (stdin is empty; no interactive \
         programs). Use it to build, run tests, use git and other command-line tools. Returns the exit \
         code, stdout and stderr (long output keeps its start and end). Default timeout 120 s, max 600 s; \
         on timeout the command and everything it started are killed. Prefer read_file, grep, glob and \
         list_dir to read or search files."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "command": {
                    "type": "string",
                    "description": "The command line, run with `bash -c` in the workspace root."
                },
                "timeout": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_TIMEOUT_SECS,
                    "description": "Timeout in seconds (default 120, max 600)."
                },
                "description": {
                    "type": "string",
                    "description": "A short description of what the command does, for the user."
                }
            },
            "required": ["command"]
        })
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Execute
    }

    async fn call(
        &self,
        args: Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let args: Args = parse(NAME, &args)?;
        if args.command.trim().is_empty() {
            return Err(ToolError::Retry(
                "invalid arguments for bash: `command` is empty".into(),
            ));
        }
        let timeout_secs = args
            .timeout
            .unwrap_or(DEFAULT_TIMEOUT_SECS)
            .clamp(1, MAX_TIMEOUT_SECS);
        if ctx.cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        let mut child = tokio::process::Command::new("bash")
            .arg("-c")
            .arg(&args.command)
            .current_dir(ctx.workspace.root())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ToolError::Fatal(format!("could not start bash: {e}")))?;
        let pid = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .ok_or_else(|| ToolError::Fatal("bash exited before it could be tracked".into()))?;
        let mut guard = GroupGuard {
            pgid: Pid::from_raw(pid),
            armed: true,
        };
        let (out, err) = (new_capture(), new_capture());
        let mut pumps = [
            pump(
                child
                    .stdout
                    .take()
                    .ok_or_else(|| ToolError::Fatal("no stdout pipe".into()))?,
                out.clone(),
            ),
            pump(
                child
                    .stderr
                    .take()
                    .ok_or_else(|| ToolError::Fatal("no stderr pipe".into()))?,
                err.clone(),
            ),
        ];

        let outcome = tokio::select! {
            status = child.wait() => Outcome::Exited(status),
            _ = tokio::time::sleep(Duration::from_secs(timeout_secs)) => Outcome::TimedOut,
            _ = ctx.cancel.cancelled() => Outcome::Cancelled,
        };

        let mut head = Vec::new();
        match outcome {
            Outcome::Exited(status) => {
                let status =
                    status.map_err(|e| ToolError::Transient(format!("waiting for bash: {e}")))?;
                head.push(exit_line(status));
                // Background processes may still hold the pipes: read on for a grace period only.
                let [a, b] = &mut pumps;
                let drained = tokio::select! {
                    _ = async { let _ = a.await; let _ = b.await; } => true,
                    _ = tokio::time::sleep(self.grace) => false,
                    _ = ctx.cancel.cancelled() => return Err(ToolError::Cancelled),
                };
                if drained {
                    // The command finished cleanly; leave processes it detached alone.
                    guard.armed = false;
                } else {
                    guard.kill();
                    drain(&mut pumps, DRAIN_AFTER_KILL).await;
                    head.push(format!(
                        "note: background processes kept the output open after the command exited; \
                         they were killed after {} ms",
                        self.grace.as_millis()
                    ));
                }
            }
            Outcome::TimedOut => {
                guard.kill();
                let _ = child.wait().await;
                drain(&mut pumps, DRAIN_AFTER_KILL).await;
                head.push("exit code: unknown".into());
                head.push(format!(
                    "timed out after {timeout_secs} s; the command and its process group were killed. \
                     Output so far:"
                ));
            }
            Outcome::Cancelled => {
                guard.kill();
                let _ = child.wait().await;
                pumps.iter().for_each(JoinHandle::abort);
                return Err(ToolError::Cancelled);
            }
        }
        Ok(ToolOutput::text(render(&head, &out, &err)))
    }

    async fn preview(
        &self,
        args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Option<String>, ToolError> {
        let args: Args = parse(NAME, args)?;
        Ok(Some(args.command))
    }
}

#[cfg(test)]
#[path = "bash_tests.rs"]
mod tests;
