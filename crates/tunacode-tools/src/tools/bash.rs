//! `bash`: runs a shell command in its own process group, with a timeout, cancellation and capped output.

use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::args::parse;
use crate::schema::schema_for;
use crate::tool::{Tool, ToolContext, ToolKind, ToolOutput};
use crate::tool_error::ToolError;
use crate::tools::process::{MAX_TIMEOUT_SECS, RunOptions, run_captured, timeout_secs};
use std::sync::LazyLock;

const NAME: &str = "bash";

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

#[derive(Deserialize, JsonSchema)]
struct Args {
    command: String,
    /// Seconds (default 120).
    #[schemars(range(min = 1, max = MAX_TIMEOUT_SECS))]
    timeout: Option<u64>,
    /// Run outside the sandbox (the user is asked), only after it refused a command that needs to.
    outside_sandbox: Option<bool>,
    // Accepted (models trained on other agents send it) but not offered: it is not used.
    #[serde(rename = "description")]
    #[schemars(skip)]
    _description: Option<String>,
}

#[async_trait]
impl Tool for Bash {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        "Run a command with `bash -c` in the workspace root, stdin empty: builds, tests, git. Returns \
         the exit code, stdout and stderr (long output keeps its start and end). All it starts ends \
         when it returns: ask the user to start long-running servers. Read files with the file tools."
    }

    fn parameters(&self) -> Value {
        // Derived once: the schema is offered to the model on every call.
        static SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<Args>);
        SCHEMA.clone()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Execute
    }

    /// A command line that only runs known read-only programs (`ls`, `cat`, `rg`, `git status`, …,
    /// joined by pipes or `&&`, with no redirection, `;` or subshell) only reads.
    fn classify(&self, args: &Map<String, Value>) -> ToolKind {
        if crate::exec::asks_outside_sandbox(args) {
            return ToolKind::Execute;
        }
        match args.get("command").and_then(Value::as_str) {
            Some(command) if crate::shell::is_read_only_command(command) => ToolKind::ReadOnly,
            _ => ToolKind::Execute,
        }
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
        let timeout = timeout_secs(args.timeout);
        let mut cmd = tokio::process::Command::new("bash");
        cmd.arg("-c")
            .arg(&args.command)
            .current_dir(ctx.workspace.root());
        let run = RunOptions {
            label: "bash",
            timeout_secs: timeout,
            grace: self.grace,
            outside_sandbox: args.outside_sandbox.unwrap_or(false),
            input: None,
            env: Vec::new(),
            require_confined: false,
        };
        let text = run_captured(cmd, run, ctx).await?;
        Ok(ToolOutput::text(text))
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
