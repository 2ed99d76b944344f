//! Asking the user at the terminal before a write or command runs (`tunacode run` without `--yes`).

use std::io::{BufRead, Write};

use tunacode_core::{
    ApprovalDecision, ApprovalRequest, Approver, LimitDecision, PlanDecision, ProgressReport,
};

/// Prompts on the controlling terminal (`/dev/tty`), so it works whatever stdout is piped to.
#[derive(Debug, Clone, Copy)]
pub struct TtyApprover;

impl TtyApprover {
    /// Whether a terminal is there to ask on.
    pub fn available() -> bool {
        use std::io::IsTerminal;
        std::io::stdin().is_terminal() && std::fs::File::open("/dev/tty").is_ok()
    }
}

#[tunacode_core::async_trait]
impl Approver for TtyApprover {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        let request = request.clone();
        tokio::task::spawn_blocking(move || approve_blocking(&request))
            .await
            .unwrap_or(ApprovalDecision::Deny {
                reason: "the approval prompt failed".into(),
            })
    }

    async fn on_iteration_limit(&self, report: &ProgressReport) -> LimitDecision {
        let question = format!(
            "\n{}\nChoose [1/2/3], anything else stops: ",
            report.summary
        );
        let answer = tokio::task::spawn_blocking(move || ask(&question))
            .await
            .ok()
            .flatten();
        match answer.as_deref().map(str::trim) {
            Some("1") => LimitDecision::Continue,
            Some("2") => LimitDecision::Summarize,
            Some("3") => LimitDecision::TryAnotherApproach,
            _ => LimitDecision::Stop,
        }
    }

    async fn review_plan(&self, plan: &str) -> PlanDecision {
        let question =
            format!("\n── plan ──\n{plan}\n\nApprove the plan? [y/N, or type feedback] ");
        let answer = tokio::task::spawn_blocking(move || ask(&question))
            .await
            .ok()
            .flatten();
        match answer.as_deref().map(str::trim) {
            Some(a) if a.eq_ignore_ascii_case("y") || a.eq_ignore_ascii_case("yes") => {
                PlanDecision::Approve
            }
            Some(a)
                if a.is_empty() || a.eq_ignore_ascii_case("n") || a.eq_ignore_ascii_case("no") =>
            {
                PlanDecision::Reject {
                    feedback: "the user did not approve the plan".into(),
                }
            }
            Some(feedback) => PlanDecision::Reject {
                feedback: feedback.to_string(),
            },
            None => PlanDecision::Stop,
        }
    }
}

/// Asks one question on the terminal; `None` when there is no terminal to ask on.
fn ask(question: &str) -> Option<String> {
    let mut tty_out = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/tty")
        .ok()?;
    let tty_in = std::fs::File::open("/dev/tty").ok()?;
    write!(tty_out, "{question}").ok()?;
    tty_out.flush().ok()?;
    let mut line = String::new();
    std::io::BufReader::new(tty_in).read_line(&mut line).ok()?;
    Some(line)
}

/// Shows the request and reads y/n from the terminal.
fn approve_blocking(request: &ApprovalRequest) -> ApprovalDecision {
    let deny = |reason: &str| ApprovalDecision::Deny {
        reason: reason.to_string(),
    };
    let Ok(mut tty_out) = std::fs::OpenOptions::new().write(true).open("/dev/tty") else {
        return deny("no terminal to ask for approval on");
    };
    let Ok(tty_in) = std::fs::File::open("/dev/tty") else {
        return deny("no terminal to ask for approval on");
    };
    let detail = request
        .preview
        .clone()
        .unwrap_or_else(|| request.args.to_string());
    let _ = write!(
        tty_out,
        "\n── {} wants to run ──\n{}\nAllow? [y/N] ",
        request.tool_name,
        detail.trim_end()
    );
    let _ = tty_out.flush();
    let mut line = String::new();
    if std::io::BufReader::new(tty_in)
        .read_line(&mut line)
        .is_err()
    {
        return deny("could not read the answer");
    }
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => ApprovalDecision::Approve,
        _ => deny("the user declined"),
    }
}
