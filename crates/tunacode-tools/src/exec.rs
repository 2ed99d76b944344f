//! How `bash` and `run_command` run their programs: in the sandbox (unless the user approved one run
//! outside it), and with the environment the user allows them to see.

use std::ffi::OsString;
use std::sync::Arc;

use crate::sandbox::{SandboxMode, SandboxPolicy};

/// The policy for commands the agent runs.
#[derive(Debug, Clone)]
pub struct ExecPolicy {
    /// The sandbox.
    pub sandbox: SandboxPolicy,
    /// The whole environment a command gets (`None`: the agent's own, as it is).
    pub env: Option<Arc<Vec<(OsString, OsString)>>>,
}

impl Default for ExecPolicy {
    /// No sandbox and the agent's environment: what engine tests and embedders get unless they ask.
    fn default() -> Self {
        ExecPolicy {
            sandbox: SandboxPolicy {
                mode: SandboxMode::Off,
                ..SandboxPolicy::default()
            },
            env: None,
        }
    }
}

impl ExecPolicy {
    /// Gives `cmd` the environment commands see.
    pub(crate) fn apply_env(&self, cmd: &mut tokio::process::Command) {
        if let Some(env) = &self.env {
            cmd.env_clear();
            cmd.envs(env.iter().map(|(k, v)| (k, v)));
        }
    }

    /// What a failed sandboxed command's output gets when it looks like the sandbox refused it.
    pub(crate) fn refusal_note(&self) -> String {
        let writes = match self.sandbox.mode {
            SandboxMode::ReadOnly => "no writes at all".to_string(),
            _ => {
                let roots: Vec<String> = self
                    .sandbox
                    .writable_roots
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect();
                format!("writes only in {}", roots.join(", "))
            }
        };
        let network = if self.sandbox.network {
            ""
        } else {
            ", no network"
        };
        format!(
            "note: this command ran in the {} sandbox ({writes}{network}); the error looks like the \
             sandbox refusing it. If it must run outside the sandbox, call it again with \
             \"outside_sandbox\": true and say why: the user will be asked.",
            self.sandbox.mode.name()
        )
    }
}

/// Whether a `bash`/`run_command` call asks to run outside the sandbox.
pub fn asks_outside_sandbox(args: &serde_json::Map<String, serde_json::Value>) -> bool {
    args.get("outside_sandbox")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
}

/// Whether a failed command's output looks like the sandbox refused something.
pub(crate) fn looks_refused(output: &str) -> bool {
    !output.starts_with("exit code: 0")
        && [
            "Permission denied",
            "Operation not permitted",
            "Read-only file system",
            "Network is unreachable",
        ]
        .iter()
        .any(|m| output.contains(m))
}
