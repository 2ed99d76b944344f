//! What a failing check says that it did not say before the request's first edit: the lines of its
//! output the baseline did not have (durations taken out, so "finished in 0.31s" is no news), or
//! its whole tail when it passed then.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use super::run::{CheckRun, output_tail};

/// What `now` reports that `before` did not: `None` when it passes, or fails only the way it
/// already did.
pub fn new_failures(before: Option<&CheckRun>, now: &CheckRun) -> Option<String> {
    if now.passed() {
        return None;
    }
    let Some(before) = before.filter(|b| !b.passed()) else {
        return Some(now.report.output_tail.clone());
    };
    let old: HashSet<String> = before.output.lines().map(shape).collect();
    let fresh: Vec<&str> = now
        .output
        .lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty() && !old.contains(&shape(line)))
        .collect();
    (!fresh.is_empty()).then(|| output_tail(&fresh.join("\n")))
}

/// A line with its durations and surrounding blanks taken out.
fn shape(line: &str) -> String {
    static DURATION: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\d+(\.\d+)?\s*(ms|s|sec|secs|seconds)\b").unwrap_or_else(|_| unreachable!())
    });
    DURATION.replace_all(line.trim(), "<t>").into_owned()
}

#[cfg(test)]
mod tests {
    use tunacode_protocol::{CheckReport, CheckStatus};

    use super::*;
    use crate::checks::run::TAIL_BYTES;

    fn run(status: CheckStatus, output: &str) -> CheckRun {
        CheckRun {
            report: CheckReport {
                name: "check".into(),
                kind: "typecheck".into(),
                status,
                duration_ms: 1,
                output_tail: output_tail(output),
            },
            output: output.into(),
        }
    }

    #[test]
    fn only_what_the_baseline_did_not_say_is_new() {
        let before = run(
            CheckStatus::Failed,
            "exit code: 1\nerror: old problem in a.rs\nfinished in 0.31s",
        );
        let same = run(
            CheckStatus::Failed,
            "exit code: 1\nerror: old problem in a.rs\nfinished in 0.52s",
        );
        assert_eq!(new_failures(Some(&before), &same), None);
        let worse = run(
            CheckStatus::Failed,
            "exit code: 1\nerror: old problem in a.rs\nerror: new problem in b.rs\nfinished in 1s",
        );
        assert_eq!(
            new_failures(Some(&before), &worse).as_deref(),
            Some("error: new problem in b.rs")
        );
    }

    #[test]
    fn a_check_that_passed_before_shows_its_whole_tail_and_a_pass_shows_nothing() {
        let passed = run(CheckStatus::Passed, "exit code: 0\nok");
        let broken = run(CheckStatus::Failed, "exit code: 2\nerror: broken");
        assert_eq!(
            new_failures(Some(&passed), &broken).as_deref(),
            Some("exit code: 2\nerror: broken")
        );
        assert_eq!(
            new_failures(None, &broken).as_deref(),
            Some("exit code: 2\nerror: broken")
        );
        assert_eq!(new_failures(Some(&broken), &passed), None);
    }

    #[test]
    fn a_long_output_keeps_its_end_from_a_line_start() {
        let long: String = (0..2000).map(|n| format!("line {n}\n")).collect();
        let tail = output_tail(&long);
        assert!(tail.len() <= TAIL_BYTES + 4);
        assert!(tail.starts_with("…\nline "), "{}", &tail[..20]);
        assert!(tail.ends_with("line 1999"));
    }
}
