//! [`run_shell`]: a shell command the agent runs on its own account (a project's check, a hook),
//! started exactly as `bash` starts the model's commands (the exec policy: sandbox, environment,
//! process group, time limit), with its exit code read back.

use std::time::Duration;

use tunacode_protocol::OutputStream;

use super::process::{RunOptions, exit_code_in, run_captured, run_prepared, set_aside_note};
use crate::tool::ToolContext;
use crate::tool_error::ToolError;

/// How long to keep reading after the command exits while something it started holds its output.
const GRACE: Duration = Duration::from_secs(2);

/// `command` for `bash -c`, run from the workspace root.
fn bash(command: &str, ctx: &ToolContext) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new("bash");
    cmd.arg("-c").arg(command).current_dir(ctx.workspace.root());
    cmd
}

/// How a command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandRun {
    /// Its exit code (`None`: timed out, or ended by a signal).
    pub exit_code: Option<i32>,
    /// Its output as `bash` renders it (the exit line, stdout, stderr, notes).
    pub output: String,
}

impl CommandRun {
    /// Whether it exited 0.
    pub fn passed(&self) -> bool {
        self.exit_code == Some(0)
    }
}

/// Runs `command` with `bash -c` in the workspace under `ctx`'s exec policy, for at most
/// `timeout_secs` (and only in the sandbox when `confined_only`); cancelled with `ctx.cancel`.
pub async fn run_shell(
    command: &str,
    (timeout_secs, confined_only): (u64, bool),
    ctx: &ToolContext,
) -> Result<CommandRun, ToolError> {
    let cmd = bash(command, ctx);
    let run = RunOptions {
        label: "check",
        timeout_secs,
        grace: GRACE,
        outside_sandbox: false,
        input: None,
        env: Vec::new(),
        require_confined: confined_only,
    };
    let output = run_captured(cmd, run, ctx).await?;
    Ok(CommandRun {
        exit_code: exit_code_in(&output),
        output,
    })
}

/// How a program run with input ended, its streams apart (a lifecycle hook reads JSON on stdin and
/// answers on stdout, with its message on stderr).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputRun {
    /// Its exit code (`None`: timed out, or ended by a signal).
    pub exit_code: Option<i32>,
    /// Whether it ran out of time.
    pub timed_out: bool,
    /// What it printed on stdout.
    pub stdout: String,
    /// What it printed on stderr (with a note when protected paths it changed were set aside).
    pub stderr: String,
}

/// Runs `command` with `bash -c` in the workspace, `input` on its stdin and `env` added to the
/// commands' environment, for at most `timeout_secs`: in the commands' sandbox when `confined`, else
/// as the user's own command (still in its own session, killed with its group at the limit).
pub async fn run_with_input(
    command: &str,
    input: Vec<u8>,
    (timeout_secs, confined): (u64, bool),
    env: Vec<(String, String)>,
    ctx: &ToolContext,
) -> Result<InputRun, ToolError> {
    let cmd = bash(command, ctx);
    let run = RunOptions {
        label: "hook",
        timeout_secs,
        grace: GRACE,
        outside_sandbox: !confined,
        input: Some(input),
        env,
        require_confined: confined,
    };
    let (ran, _, set_aside) = run_prepared(cmd, run, ctx).await?;
    let mut stderr = ran.stream(OutputStream::Stderr);
    if !set_aside.is_empty() {
        stderr.push_str(&set_aside_note(&set_aside));
    }
    Ok(InputRun {
        exit_code: ran.exit_code,
        timed_out: ran.timed_out,
        stdout: ran.stream(OutputStream::Stdout),
        stderr,
    })
}
