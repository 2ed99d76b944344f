//! [`spawn_server`]: a long-running helper the agent starts on its own account (a language server),
//! with its stdin and stdout piped, launched like the model's commands: the exec policy's
//! environment, its own session and a reaper, and the commands' sandbox when one is in force (a
//! language server may run a repository's code: build scripts, plugins).

use std::path::Path;
use std::process::Stdio;

use crate::exec::ExecPolicy;
use crate::tool_error::ToolError;

/// Starts `argv` in `cwd` under `exec` (blocking: preparing the sandbox reads the file system; call
/// it off the async threads, inside the runtime).
pub fn spawn_server(
    exec: &ExecPolicy,
    argv: &[String],
    cwd: &Path,
) -> Result<tokio::process::Child, ToolError> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| ToolError::Fatal("a server needs a command".into()))?;
    let prepared = exec
        .sandbox
        .prepare(false)
        .map_err(|e| ToolError::Fatal(e.to_string()))?;
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    exec.apply_env(&mut cmd);
    // What a server changes is not checked after it (it runs for the session); the sandbox's
    // read-only binds over the protected paths still hold while it runs.
    let _snapshot = prepared.install(&mut cmd);
    cmd.spawn()
        .map_err(|e| ToolError::Retry(format!("could not start `{program}`: {e}")))
}
