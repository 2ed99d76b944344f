//! Asking the user at the terminal before a write or command runs (`tunacode run` without `--yes`).

use std::io::{BufRead, Write};

use tunacode_core::{ApprovalDecision, ApprovalRequest, Approver};

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
