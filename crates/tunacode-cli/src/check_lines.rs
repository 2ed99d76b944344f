//! The text output's lines for the project's checks: one a run on stderr, and the verdict at the end.

use tunacode_protocol::stream::VerificationOut;
use tunacode_protocol::{CheckPhase, CheckReport, CheckStatus};

/// A check that ran, one line.
pub fn check_line(phase: CheckPhase, check: &CheckReport) -> String {
    let mark = match check.status {
        CheckStatus::Passed => "✓",
        CheckStatus::Failed => "✗",
        CheckStatus::Error => "!",
    };
    let when = match phase {
        CheckPhase::Baseline => "before the first edit",
        CheckPhase::AfterEdit => "after the edit",
        CheckPhase::Completion => "at completion",
    };
    format!(
        "  {mark} check {} {} ({when}, {} ms)",
        check.name,
        check.status.name(),
        check.duration_ms
    )
}

/// The verdict line, when there is something to say (checks ran, or the answer claims too much).
pub fn verdict_line(v: &VerificationOut) -> Option<String> {
    if v.checks.is_empty() && v.note.is_none() {
        return None;
    }
    let failing: Vec<&str> = v
        .checks
        .iter()
        .filter(|c| c.status != "passed")
        .map(|c| c.name.as_str())
        .collect();
    let mut line = match v.status {
        "failing" => format!("tunacode: failing: {}", failing.join(", ")),
        status => format!("tunacode: {status}"),
    };
    if let Some(note) = &v.note {
        line.push_str(&format!(" ({note})"));
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use tunacode_protocol::stream::CheckOut;

    use super::*;

    fn out(status: &'static str, checks: Vec<CheckOut>, note: Option<&str>) -> VerificationOut {
        VerificationOut {
            status,
            checks,
            note: note.map(str::to_string),
        }
    }

    fn check(name: &str, status: &'static str) -> CheckOut {
        CheckOut {
            name: name.into(),
            kind: "test".into(),
            status,
            duration_ms: 5,
            output_tail: String::new(),
        }
    }

    #[test]
    fn the_verdict_names_what_fails_and_says_nothing_without_checks_or_a_note() {
        assert_eq!(verdict_line(&out("unverified", vec![], None)), None);
        let failing = out(
            "failing",
            vec![check("lint", "passed"), check("tests", "failed")],
            Some("The answer says the checks pass, but they still fail."),
        );
        assert_eq!(
            verdict_line(&failing).unwrap(),
            "tunacode: failing: tests (The answer says the checks pass, but they still fail.)"
        );
        let verified = out("verified", vec![check("tests", "passed")], None);
        assert_eq!(verdict_line(&verified).unwrap(), "tunacode: verified");
    }

    #[test]
    fn a_check_line_says_how_and_when_it_ran() {
        let report = CheckReport {
            name: "cargo check".into(),
            kind: "typecheck".into(),
            status: CheckStatus::Failed,
            duration_ms: 812,
            output_tail: String::new(),
        };
        assert_eq!(
            check_line(CheckPhase::AfterEdit, &report),
            "  ✗ check cargo check failed (after the edit, 812 ms)"
        );
    }
}
