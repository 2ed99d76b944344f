//! Running a program for a tool: launched by the sandbox (its own session and reaper, so a timeout or
//! an abort kills everything it started, and nothing it started outlives it), stdin empty, stdout and
//! stderr captured with their start and end kept, a timeout, and cancellation; afterwards, protected
//! paths it created are set aside. Shared by `bash` and `run_command`.

use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::task::JoinHandle;
use tunacode_protocol::OutputStream;

use crate::exec::looks_refused;
use crate::fsutil::join_error;
use crate::live::LiveOutput;
use crate::sandbox::ProtectedSnapshot;
use crate::tool::ToolContext;
use crate::tool_error::ToolError;
use crate::truncate::HeadTail;

/// A command's timeout when none is given, in seconds.
pub(crate) const DEFAULT_TIMEOUT_SECS: u64 = 120;
/// The longest timeout a command may ask for, in seconds.
pub(crate) const MAX_TIMEOUT_SECS: u64 = 600;

/// The timeout to use for a command that asked for `requested` seconds.
pub(crate) fn timeout_secs(requested: Option<u64>) -> u64 {
    requested
        .unwrap_or(DEFAULT_TIMEOUT_SECS)
        .clamp(1, MAX_TIMEOUT_SECS)
}

/// Bytes kept from the start and from the end of each stream.
pub(crate) const HEAD_BYTES: usize = 15 * 1024;
pub(crate) const TAIL_BYTES: usize = 15 * 1024;
/// How long to wait for the pipes to close after the group was killed.
const DRAIN_AFTER_KILL: Duration = Duration::from_secs(1);

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

pub(crate) fn new_capture() -> Capture {
    Arc::new(Mutex::new(HeadTail::new(HEAD_BYTES, TAIL_BYTES)))
}

/// Copies a stream into its capture until EOF, forwarding each read live when the call has a sink.
fn pump<R: AsyncRead + Unpin + Send + 'static>(
    mut reader: R,
    capture: Capture,
    mut live: Option<LiveOutput>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            match reader.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    capture
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(&buf[..n]);
                    if let Some(live) = &mut live {
                        live.push(&buf[..n]);
                    }
                }
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

/// The exit code an output rendered by [`run_captured`] starts with (`None`: it has none: a signal,
/// a timeout).
pub(crate) fn exit_code_in(output: &str) -> Option<i32> {
    output
        .lines()
        .next()?
        .strip_prefix("exit code: ")?
        .parse()
        .ok()
}

enum Outcome {
    Exited(std::io::Result<ExitStatus>),
    TimedOut,
    Cancelled,
}

/// Runs `cmd` to its end (or its timeout) under the context's exec policy and renders the exit code
/// and output; a sandboxed command that failed the way the sandbox refuses gets a note saying so, and
/// one that created or changed protected paths gets them set aside and named.
pub(crate) async fn run_captured(
    cmd: tokio::process::Command,
    run: RunOptions<'_>,
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let (ran, sandboxed, set_aside) = run_prepared(cmd, run, ctx).await?;
    let mut text = render(&ran.head, &ran.out, &ran.err);
    if sandboxed && looks_refused(&text) {
        text = format!("{text}\n{}", ctx.exec.refusal_note());
    }
    if !set_aside.is_empty() {
        text.push_str(&set_aside_note(&set_aside));
    }
    Ok(text)
}

/// What the model is told of protected paths a command created or changed.
pub(crate) fn set_aside_note(set_aside: &[String]) -> String {
    format!(
        "\nnote: the command created or changed protected paths (git hooks and config, the \
         project's agent settings, instruction files); they were set aside:\n{}\nChange them \
         only with the file tools, which ask the user.",
        set_aside.join("\n")
    )
}

/// Runs `cmd` under the context's exec policy (the sandbox prepared off the async threads unless
/// it runs unconfined); what it did, whether it was confined, and the protected paths set aside
/// after it.
pub(crate) async fn run_prepared(
    mut cmd: tokio::process::Command,
    run: RunOptions<'_>,
    ctx: &ToolContext,
) -> Result<(Ran, bool, Vec<String>), ToolError> {
    let exec = ctx.exec.clone();
    let outside = run.outside_sandbox;
    // Only a sandboxed launch reads the file system; an unconfined one is built in place.
    let prepared = if outside || exec.sandbox.mode == crate::sandbox::SandboxMode::Off {
        exec.sandbox.prepare(true)
    } else {
        tokio::task::spawn_blocking(move || exec.sandbox.prepare(outside))
            .await
            .map_err(join_error)?
    }
    .map_err(|e| ToolError::Fatal(e.to_string()))?;
    let sandboxed = prepared.confined();
    if run.require_confined && !sandboxed {
        return Err(ToolError::Fatal(
            "not run: it comes from the repository and runs only inside the commands' sandbox, \
             which is not in force here"
                .into(),
        ));
    }
    ctx.exec.apply_env(&mut cmd);
    cmd.envs(run.env.iter().map(|(k, v)| (k, v)));
    let snapshot = prepared.install(&mut cmd);
    let result = run_child(cmd, &run, ctx).await;
    let set_aside = settle(snapshot).await;
    Ok((result?, sandboxed, set_aside))
}

/// Sets aside the protected paths a command created or changed (off the async threads).
async fn settle(snapshot: Option<ProtectedSnapshot>) -> Vec<String> {
    match snapshot {
        Some(snapshot) => tokio::task::spawn_blocking(move || snapshot.settle())
            .await
            .unwrap_or_default(),
        None => Vec::new(),
    }
}

/// How one command runs.
pub(crate) struct RunOptions<'a> {
    /// The program's name, for errors.
    pub label: &'a str,
    /// Its timeout.
    pub timeout_secs: u64,
    /// How long to keep reading after it exits while background processes hold its output open.
    pub grace: Duration,
    /// Run outside the sandbox (a run the user approved).
    pub outside_sandbox: bool,
    /// What the command reads on stdin (`None`: nothing, stdin is empty).
    pub input: Option<Vec<u8>>,
    /// Variables set for it on top of the commands' environment.
    pub env: Vec<(String, String)>,
    /// It may run only confined (a repository's check or hook): with no sandbox in force it does
    /// not run.
    pub require_confined: bool,
}

/// A finished command: its exit line (and notes), its exit code, and its captured streams.
pub(crate) struct Ran {
    /// The exit line, and what happened at the end (a timeout, background processes killed).
    pub head: Vec<String>,
    /// Its exit code (`None`: a signal or a timeout).
    pub exit_code: Option<i32>,
    /// Whether it ran out of time.
    pub timed_out: bool,
    out: Capture,
    err: Capture,
}

impl Ran {
    /// A stream as text (head and tail kept when it was long).
    pub(crate) fn stream(&self, which: OutputStream) -> String {
        let capture = match which {
            OutputStream::Stdout => &self.out,
            OutputStream::Stderr => &self.err,
        };
        capture.lock().unwrap_or_else(|e| e.into_inner()).render()
    }
}

/// A started command: the process, its group's guard, and the pumps reading its output.
struct Running {
    child: tokio::process::Child,
    guard: GroupGuard,
    pumps: [JoinHandle<()>; 2],
    out: Capture,
    err: Capture,
}

/// Starts `cmd` with its output piped to captures (and forwarded live when the call has a sink).
fn start(
    mut cmd: tokio::process::Command,
    run: &RunOptions<'_>,
    ctx: &ToolContext,
) -> Result<Running, ToolError> {
    let label = run.label;
    let stdin = match run.input {
        Some(_) => Stdio::piped(),
        None => Stdio::null(),
    };
    let mut child = cmd
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| ToolError::Retry(format!("could not start `{label}`: {e}")))?;
    let pid = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .ok_or_else(|| ToolError::Fatal(format!("`{label}` exited before it could be tracked")))?;
    let guard = GroupGuard {
        pgid: Pid::from_raw(pid),
        armed: true,
    };
    let live = |stream| ctx.output.clone().map(|sink| LiveOutput::new(sink, stream));
    let (out, err) = (new_capture(), new_capture());
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| ToolError::Fatal("no stdout pipe".into()))?;
    let stderr = child
        .stderr
        .take()
        .ok_or_else(|| ToolError::Fatal("no stderr pipe".into()))?;
    let pumps = [
        pump(stdout, out.clone(), live(OutputStream::Stdout)),
        pump(stderr, err.clone(), live(OutputStream::Stderr)),
    ];
    if let (Some(input), Some(mut stdin)) = (run.input.clone(), child.stdin.take()) {
        // A command that does not read its input is no error: the write just ends.
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let _ = stdin.write_all(&input).await;
        });
    }
    Ok(Running {
        child,
        guard,
        pumps,
        out,
        err,
    })
}

async fn run_child(
    cmd: tokio::process::Command,
    run: &RunOptions<'_>,
    ctx: &ToolContext,
) -> Result<Ran, ToolError> {
    if ctx.cancel.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    let mut running = start(cmd, run, ctx)?;
    let (mut exit_code, mut timed_out) = (None, false);
    let outcome = tokio::select! {
        status = running.child.wait() => Outcome::Exited(status),
        _ = tokio::time::sleep(Duration::from_secs(run.timeout_secs)) => Outcome::TimedOut,
        _ = ctx.cancel.cancelled() => Outcome::Cancelled,
    };
    let head = match outcome {
        Outcome::Exited(status) => {
            exit_code = status.as_ref().ok().and_then(ExitStatus::code);
            exited(&mut running, status, run, &ctx.cancel).await?
        }
        Outcome::TimedOut => {
            timed_out = true;
            running.guard.kill();
            let _ = running.child.wait().await;
            drain(&mut running.pumps, DRAIN_AFTER_KILL).await;
            vec![
                "exit code: unknown".into(),
                format!(
                    "timed out after {} s; the command and its process group were killed. \
                     Output so far:",
                    run.timeout_secs
                ),
            ]
        }
        Outcome::Cancelled => {
            running.guard.kill();
            let _ = running.child.wait().await;
            running.pumps.iter().for_each(JoinHandle::abort);
            return Err(ToolError::Cancelled);
        }
    };
    Ok(Ran {
        timed_out,
        head,
        exit_code,
        out: running.out,
        err: running.err,
    })
}

/// The command exited: its exit line, once its output is read (for a grace period at most while
/// something still holds the pipes, then killed and said).
async fn exited(
    running: &mut Running,
    status: std::io::Result<ExitStatus>,
    run: &RunOptions<'_>,
    cancel: &tokio_util::sync::CancellationToken,
) -> Result<Vec<String>, ToolError> {
    let status =
        status.map_err(|e| ToolError::Transient(format!("waiting for `{}`: {e}", run.label)))?;
    let mut head = vec![exit_line(status)];
    let [a, b] = &mut running.pumps;
    let drained = tokio::select! {
        _ = async { let _ = a.await; let _ = b.await; } => true,
        _ = tokio::time::sleep(run.grace) => false,
        _ = cancel.cancelled() => return Err(ToolError::Cancelled),
    };
    if drained {
        // The command and everything it started have ended (the launch reaps them).
        running.guard.armed = false;
    } else {
        running.guard.kill();
        drain(&mut running.pumps, DRAIN_AFTER_KILL).await;
        head.push(format!(
            "note: background processes kept the output open after the command exited; \
             they were killed after {} ms",
            run.grace.as_millis()
        ));
    }
    Ok(head)
}
