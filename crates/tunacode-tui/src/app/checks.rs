//! The project's checks in the transcript: a line for each run (a failure with the last lines of
//! its output), and at the end of a request the verdict on its changes, when checks ran or the
//! answer claims more than was proved.

use tunacode_protocol::{
    CheckPhase, CheckReport, CheckStatus, NoticeLevel, Verification, VerificationStatus,
};

use tunacode_core::Op;
use tunacode_protocol::runtime::ProjectFileKind;

use crate::app::state::App;
use crate::app::transcript::CellKind;

/// Lines of a failing check's output shown under it.
const SHOWN_LINES: usize = 6;

impl App {
    /// A check ran.
    pub(super) fn on_check_finished(&mut self, phase: CheckPhase, check: &CheckReport) {
        let when = match phase {
            CheckPhase::Baseline => "before the first edit",
            CheckPhase::AfterEdit => "after the edit",
            CheckPhase::Completion => "at completion",
        };
        let head = format!(
            "check {} {} ({when}, {})",
            check.name,
            check.status.name(),
            seconds(check.duration_ms)
        );
        let cell = match check.status {
            CheckStatus::Passed => CellKind::Info(format!("✓ {head}")),
            // What already failed before the first edit is no news: a line, without its output.
            _ if phase == CheckPhase::Baseline => CellKind::Info(format!("· {head}")),
            _ => CellKind::Notice(
                NoticeLevel::Warning,
                format!("✗ {head}\n{}", last_lines(&check.output_tail)),
            ),
        };
        self.view.transcript.push(cell);
    }

    /// `/checks` or `/hooks`: what is in force; with `approve`: approve the project's file.
    pub(super) fn project_file_command(&mut self, kind: ProjectFileKind, arg: Option<&str>) {
        match arg {
            None => self.submit_op(Op::DescribeProjectFile { kind }),
            Some("approve") => self.submit_op(Op::ApproveProjectFile { kind }),
            Some(other) => self.view.transcript.push(CellKind::Error(format!(
                "Unknown {0} argument `{other}`: use {0} or {0} approve.",
                kind.command()
            ))),
        }
    }

    /// The verdict at the end of a request.
    pub(super) fn on_verification(&mut self, v: &Verification) {
        if v.checks.is_empty() && v.note.is_none() {
            return;
        }
        let failing: Vec<&str> = v
            .checks
            .iter()
            .filter(|c| c.status != CheckStatus::Passed)
            .map(|c| c.name.as_str())
            .collect();
        let mut text = match v.status {
            VerificationStatus::Verified => {
                let names: Vec<&str> = v.checks.iter().map(|c| c.name.as_str()).collect();
                format!("Verified: {} passed after the last edit.", names.join(", "))
            }
            VerificationStatus::Failing => format!("Failing: {}.", failing.join(", ")),
            VerificationStatus::Unverified => "Unverified.".to_string(),
        };
        if let Some(note) = &v.note {
            text.push(' ');
            text.push_str(note);
        }
        let cell = match v.status {
            VerificationStatus::Verified => CellKind::Info(text),
            _ => CellKind::Notice(NoticeLevel::Warning, text),
        };
        self.view.transcript.push(cell);
    }
}

fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

fn last_lines(text: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let from = lines.len().saturating_sub(SHOWN_LINES);
    lines[from..].join("\n")
}
