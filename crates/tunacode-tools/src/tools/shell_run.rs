//! [`run_shell`]: a shell command the agent runs on its own account (a project's check, a hook),
//! started exactly as `bash` starts the model's commands (the exec policy: sandbox, environment,
//! process group, time limit), with its exit code read back.

use std::time::Duration;

use super::process::{RunOptions, exit_code_in, run_captured};
use crate::tool::ToolContext;
use crate::tool_error::ToolError;

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
/// `timeout_secs`; cancelled with `ctx.cancel`.
pub async fn run_shell(
    command: &str,
    timeout_secs: u64,
    ctx: &ToolContext,
) -> Result<CommandRun, ToolError> {
    let mut cmd = tokio::process::Command::new("bash");
    cmd.arg("-c").arg(command).current_dir(ctx.workspace.root());
    let run = RunOptions {
        label: "check",
        timeout_secs,
        grace: Duration::from_secs(2),
        outside_sandbox: false,
    };
    let output = run_captured(cmd, run, ctx).await?;
    Ok(CommandRun {
        exit_code: exit_code_in(&output),
        output,
    })
}
