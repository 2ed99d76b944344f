//! Answering the runtime's questions at the terminal (`tunacode run` without `--yes`, with a
//! terminal): approvals, the iteration-limit choice and plan review, read from `/dev/tty` so it works
//! whatever stdout is piped to. The read runs on a blocking thread; Ctrl+C shuts the runtime down and
//! the process exits without waiting for it.

use std::io::{BufRead, Write};

use tunacode_core::{
    Answer, ApprovalAnswer, LimitDecision, LoopDecision, PlanDecision, Question, QuestionKind,
    runtime::ApprovalQuestion,
};

/// Whether a terminal is there to ask on.
#[derive(Debug, Clone, Copy)]
pub struct TtyApprover;

impl TtyApprover {
    /// Whether a terminal is there to ask on.
    pub fn available() -> bool {
        use std::io::IsTerminal;
        std::io::stdin().is_terminal() && std::fs::File::open("/dev/tty").is_ok()
    }
}

/// Asks the question at the terminal and returns the answer (a refusal / stop when nothing could be
/// read).
pub async fn answer_at_tty(question: &Question) -> Answer {
    let kind = question.kind.clone();
    tokio::task::spawn_blocking(move || answer_blocking(&kind))
        .await
        .unwrap_or(Answer::Approval(ApprovalAnswer::Deny {
            note: Some("the approval prompt failed".into()),
        }))
}

fn answer_blocking(kind: &QuestionKind) -> Answer {
    match kind {
        QuestionKind::Approval(a) => Answer::Approval(approval(a)),
        QuestionKind::IterationLimit(_) => {
            // The progress above it was printed with the run's output.
            let question = format!(
                "\n{}\nChoose [1/2/3], anything else stops: ",
                tunacode_core::guidance::limit_choices()
            );
            Answer::Limit(match ask(&question).as_deref().map(str::trim) {
                Some("1") => LimitDecision::Continue,
                Some("2") => LimitDecision::Summarize,
                Some("3") => LimitDecision::TryAnotherApproach,
                _ => LimitDecision::Stop,
            })
        }
        QuestionKind::PlanReview { plan } => Answer::Plan(plan_review(plan)),
        QuestionKind::Budget(budget) => {
            let question = format!(
                "\n{}\nRaise the {} budget to {} and go on? [y/N] ",
                budget.message,
                budget.scope.name(),
                budget.raise_to()
            );
            let raise = ask(&question).is_some_and(|a| matches!(a.trim(), "y" | "Y" | "yes"));
            Answer::Budget { raise }
        }
        QuestionKind::Loop(lp) => {
            let question = format!(
                "\nThe agent is repeating itself: after being told to change approach, {}.\n\
                 1. continue  2. stop  3. continue and stop watching for loops this session\n\
                 Choose [1/2/3], anything else stops: ",
                lp.repeated
            );
            Answer::Loop(match ask(&question).as_deref().map(str::trim) {
                Some("1") => LoopDecision::Continue,
                Some("3") => LoopDecision::Disable,
                _ => LoopDecision::Stop,
            })
        }
    }
}

fn approval(question: &ApprovalQuestion) -> ApprovalAnswer {
    let detail = question
        .preview
        .clone()
        .unwrap_or_else(|| question.args.to_string());
    let choices = if question.once_only {
        "Allow this once? [y]es, [N]o (or type a note for the agent): ".to_string()
    } else {
        format!(
            "Allow? [y]es, [a]lways: {} this session, [N]o (or type a note for the agent): ",
            question.scope
        )
    };
    let who = match &question.subagent {
        Some(label) => format!("the sub-agent {label}: "),
        None => String::new(),
    };
    let prompt = format!(
        "\n── {who}{} wants to run ({}) ──\n{}\n{choices}",
        question.tool_name,
        question.reason,
        detail.trim_end(),
    );
    let Some(line) = ask(&prompt) else {
        return ApprovalAnswer::Deny {
            note: Some("no terminal to ask for approval on".into()),
        };
    };
    match line.trim() {
        a if a.eq_ignore_ascii_case("y") || a.eq_ignore_ascii_case("yes") => {
            ApprovalAnswer::AllowOnce
        }
        a if a.eq_ignore_ascii_case("a") || a.eq_ignore_ascii_case("always") => {
            ApprovalAnswer::AllowSession
        }
        a if a.is_empty() || a.eq_ignore_ascii_case("n") || a.eq_ignore_ascii_case("no") => {
            ApprovalAnswer::Deny { note: None }
        }
        note => ApprovalAnswer::Deny {
            note: Some(note.to_string()),
        },
    }
}

fn plan_review(plan: &str) -> PlanDecision {
    let question = format!("\n── plan ──\n{plan}\n\nApprove the plan? [y/N, or type feedback] ");
    match ask(&question).as_deref().map(str::trim) {
        Some(a) if a.eq_ignore_ascii_case("y") || a.eq_ignore_ascii_case("yes") => {
            PlanDecision::Approve
        }
        Some(a) if a.is_empty() || a.eq_ignore_ascii_case("n") || a.eq_ignore_ascii_case("no") => {
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

/// Asks one question on the terminal; `None` when there is no terminal to ask on. Whatever was typed
/// (or pushed into the terminal) before the question was shown is thrown away first: only keys
/// pressed after it answer it.
fn ask(question: &str) -> Option<String> {
    let mut tty_out = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/tty")
        .ok()?;
    let tty_in = std::fs::File::open("/dev/tty").ok()?;
    write!(tty_out, "{question}").ok()?;
    tty_out.flush().ok()?;
    nix::sys::termios::tcflush(&tty_in, nix::sys::termios::FlushArg::TCIFLUSH).ok()?;
    let mut line = String::new();
    std::io::BufReader::new(tty_in).read_line(&mut line).ok()?;
    Some(line)
}
