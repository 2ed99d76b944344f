//! The project's checks over ACP: each run is a tool call of its own (an `execute` the editor shows
//! with the end of the check's output), and a request's verdict on its changes ends its answer.

use std::sync::atomic::{AtomicU64, Ordering};

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{SessionUpdate, ToolCall, ToolCallStatus, ToolKind};
use tunacode_protocol::{CheckPhase, CheckReport, CheckStatus, Verification, VerificationStatus};

use crate::diffs::text_content;
use crate::session::Session;

/// Numbers the checks' own tool calls.
static CHECK_CALLS: AtomicU64 = AtomicU64::new(1);

impl Session {
    /// A check ran: shown as a finished tool call.
    pub(crate) fn on_check(&self, phase: CheckPhase, check: &CheckReport) -> Result<(), Error> {
        let id = format!("check-{}", CHECK_CALLS.fetch_add(1, Ordering::Relaxed));
        let title = format!("check {} ({})", check.name, phase.name().replace('_', " "));
        let status = match check.status {
            CheckStatus::Passed => ToolCallStatus::Completed,
            CheckStatus::Failed | CheckStatus::Error => ToolCallStatus::Failed,
        };
        self.send(SessionUpdate::ToolCall(
            ToolCall::new(id, title)
                .kind(ToolKind::Execute)
                .status(status)
                .content(vec![text_content(check.output_tail.clone())]),
        ))
    }

    /// The verdict, after the answer, when checks ran or the answer claims more than was proved.
    pub(crate) fn say_verdict(&self, v: &Verification) -> Result<(), Error> {
        if v.checks.is_empty() && v.note.is_none() {
            return Ok(());
        }
        let names = |passed: bool| -> Vec<&str> {
            v.checks
                .iter()
                .filter(|c| (c.status == CheckStatus::Passed) == passed)
                .map(|c| c.name.as_str())
                .collect()
        };
        let mut text = match v.status {
            VerificationStatus::Verified => format!("Verified: {} passed.", names(true).join(", ")),
            VerificationStatus::Failing => format!("Failing: {}.", names(false).join(", ")),
            VerificationStatus::Unverified => "Unverified.".to_string(),
        };
        if let Some(note) = &v.note {
            text = format!("{text} {note}");
        }
        self.say(format!("\n\n{text}"))
    }
}
