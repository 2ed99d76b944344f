//! `run_command`: runs one program with its arguments, without a shell (no expansion, pipes or
//! redirection), which makes what the user approves exactly what runs. Same process-group, timeout,
//! cancellation and output handling as `bash`.

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

const NAME: &str = "run_command";

/// Runs a program with arguments in the workspace root.
#[derive(Debug, Clone, Default)]
pub struct RunCommand;

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The program, e.g. `cargo`.
    command: String,
    /// Its arguments, one string each.
    #[serde(default)]
    args: Vec<String>,
    /// Seconds (default 120).
    #[schemars(range(min = 1, max = MAX_TIMEOUT_SECS))]
    timeout: Option<u64>,
    /// As bash's `outside_sandbox`.
    outside_sandbox: Option<bool>,
}

/// The command line as the user sees it, each argument quoted when needed.
fn display(args: &Args) -> String {
    std::iter::once(&args.command)
        .chain(args.args.iter())
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[async_trait]
impl Tool for RunCommand {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        "Run one program with arguments, as bash does but without a shell (no pipes, redirection, \
         globs or variables). Easier to approve: what is shown is exactly what runs."
    }

    fn parameters(&self) -> Value {
        // Derived once: the schema is offered to the model on every call.
        static SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<Args>);
        SCHEMA.clone()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Execute
    }

    /// A known read-only program invocation (`git status`, `ls -la`, …) only reads.
    fn classify(&self, args: &Map<String, Value>) -> ToolKind {
        if crate::exec::asks_outside_sandbox(args) {
            return ToolKind::Execute;
        }
        let Ok(args) = parse::<Args>(NAME, args) else {
            return ToolKind::Execute;
        };
        let argv: Vec<String> = std::iter::once(args.command).chain(args.args).collect();
        if crate::shell::is_read_only_argv(&argv) {
            ToolKind::ReadOnly
        } else {
            ToolKind::Execute
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
                "invalid arguments for run_command: `command` is empty".into(),
            ));
        }
        let timeout = timeout_secs(args.timeout);
        let mut cmd = tokio::process::Command::new(&args.command);
        cmd.args(&args.args).current_dir(ctx.workspace.root());
        let run = RunOptions {
            label: &args.command,
            timeout_secs: timeout,
            grace: Duration::from_secs(2),
            outside_sandbox: args.outside_sandbox.unwrap_or(false),
            input: None,
            env: Vec::new(),
            require_confined: false,
        };
        let text = run_captured(cmd, run, ctx).await?;
        Ok(ToolOutput::text(format!("$ {}\n{text}", display(&args))))
    }

    async fn preview(
        &self,
        args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Option<String>, ToolError> {
        let args: Args = parse(NAME, args)?;
        Ok(Some(display(&args)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{args, ctx};
    use serde_json::json;

    #[test]
    fn known_read_only_invocations_classify_as_reads() {
        let classify = |v: serde_json::Value| RunCommand.classify(v.as_object().unwrap());
        assert_eq!(
            classify(json!({"command": "git", "args": ["status"]})),
            ToolKind::ReadOnly
        );
        assert_eq!(
            classify(json!({"command": "git", "args": ["push"]})),
            ToolKind::Execute
        );
        assert_eq!(
            classify(json!({"command": "rm", "args": ["-rf", "x"]})),
            ToolKind::Execute
        );
    }

    #[tokio::test]
    async fn runs_a_program_with_arguments_and_no_shell() {
        let dir = tempfile::tempdir().unwrap();
        let out = RunCommand
            .call(
                args(json!({"command": "echo", "args": ["a b", "$HOME", "*"]})),
                &ctx(dir.path()),
            )
            .await
            .unwrap()
            .content;
        assert_eq!(
            out,
            "$ echo 'a b' '$HOME' '*'\nexit code: 0\nstdout:\na b $HOME *"
        );
    }

    #[tokio::test]
    async fn reports_exit_codes_and_a_missing_program_to_the_model() {
        let dir = tempfile::tempdir().unwrap();
        let out = RunCommand
            .call(
                args(json!({"command": "sh", "args": ["-c", "echo oops >&2; exit 3"]})),
                &ctx(dir.path()),
            )
            .await
            .unwrap()
            .content;
        assert!(
            out.contains("exit code: 3") && out.contains("stderr:\noops"),
            "{out}"
        );
        let err = RunCommand
            .call(
                args(json!({"command": "no-such-program-xyz"})),
                &ctx(dir.path()),
            )
            .await
            .unwrap_err();
        assert!(
            matches!(&err, ToolError::Retry(m) if m.contains("could not start `no-such-program-xyz`")),
            "{err:?}"
        );
    }

    #[tokio::test]
    async fn runs_in_the_workspace_and_previews_the_exact_command() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path());
        let out = RunCommand
            .call(args(json!({"command": "pwd"})), &ctx)
            .await
            .unwrap()
            .content;
        assert!(
            out.contains(&ctx.workspace.root().display().to_string()),
            "{out}"
        );
        let preview = RunCommand
            .preview(
                &args(json!({"command": "git", "args": ["commit", "-m", "x y"]})),
                &ctx,
            )
            .await;
        assert_eq!(preview.unwrap().as_deref(), Some("git commit -m 'x y'"));
    }
}
