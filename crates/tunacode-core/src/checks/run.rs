//! Running one check: its command through [`tunacode_tools::run_shell`] (the sandbox and
//! environment the model's commands get, its own time limit), timed, with its verdict.

use std::time::Instant;

use tunacode_protocol::{CheckReport, CheckStatus};
use tunacode_tools::{ToolContext, ToolError, run_shell};

use tunacode_store::CheckSpec;

/// A check's time limit when it names none.
const DEFAULT_TIMEOUT_SECS: u64 = 300;
/// The longest a check may ask for.
const MAX_TIMEOUT_SECS: u64 = 1800;

/// One run of a check: its report and its whole output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckRun {
    /// What is shown and returned.
    pub report: CheckReport,
    /// Its output as rendered (exit line first).
    pub output: String,
}

impl CheckRun {
    /// Whether it passed.
    pub fn passed(&self) -> bool {
        self.report.status == CheckStatus::Passed
    }
}

/// Runs `spec`; `Err` only when the request was cancelled meanwhile.
pub async fn run_check(spec: &CheckSpec, ctx: &ToolContext) -> Result<CheckRun, ToolError> {
    let started = Instant::now();
    let timeout = spec
        .timeout_secs
        .unwrap_or(DEFAULT_TIMEOUT_SECS)
        .clamp(1, MAX_TIMEOUT_SECS);
    let (status, output) = match run_shell(&spec.command, (timeout, spec.from_project), ctx).await {
        Ok(run) if run.passed() => (CheckStatus::Passed, run.output),
        Ok(run) if run.exit_code.is_some() => (CheckStatus::Failed, run.output),
        Ok(run) => (CheckStatus::Error, run.output),
        Err(ToolError::Cancelled) => return Err(ToolError::Cancelled),
        Err(e) => (CheckStatus::Error, format!("the check could not run: {e}")),
    };
    let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(CheckRun {
        report: CheckReport {
            name: spec.name.clone(),
            kind: spec.kind.name().to_string(),
            status,
            duration_ms,
            output_tail: output_tail(&output),
        },
        output,
    })
}

/// Most bytes of a check's output shown to the model or the user.
pub const TAIL_BYTES: usize = 3000;

/// The end of a check's output, at most [`TAIL_BYTES`], cut at a line start.
pub fn output_tail(output: &str) -> String {
    let mut tail = output.trim_end().to_string();
    if tail.len() > TAIL_BYTES {
        tunacode_protocol::keep_tail(&mut tail, TAIL_BYTES);
        if let Some(start) = tail.find('\n') {
            tail = format!("…{}", &tail[start..]);
        }
    }
    tail
}
