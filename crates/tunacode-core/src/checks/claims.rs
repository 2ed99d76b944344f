//! An answer that claims the tests (or the build) pass: labelled when no check proved it.

use std::sync::LazyLock;

use regex::Regex;

/// Whether `answer` says the tests, the build or the checks pass.
pub fn claims_tests_pass(answer: &str) -> bool {
    // Every claim holds one of these words: most answers never build the pattern (~300 KB). Only
    // in ASCII text: `(?i)` folds Unicode case (a long s, `ſ`, matches `s`).
    let lower = answer.to_ascii_lowercase();
    if answer.is_ascii()
        && !["pass", "succeed", "green"]
            .iter()
            .any(|w| lower.contains(w))
    {
        return false;
    }
    static CLAIM: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)\b(all\s+(the\s+)?)?(tests?|specs?|checks?|build|suite)\s+(now\s+)?(pass(es|ed|ing)?|succeed(s|ed)?|(is|are)\s+(now\s+)?(passing|green))\b|\btests?\s+(are\s+)?green\b",
        )
        .unwrap_or_else(|_| unreachable!())
    });
    CLAIM.is_match(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_are_recognised_and_plain_answers_are_not() {
        for claim in [
            "Fixed the bug; all tests pass.",
            "The build succeeds now.",
            "Tests are passing.",
            "The test suite is green",
            "All checks passed.",
            "ALL TESTS PASS",
            "All teſts paſs.",
        ] {
            assert!(claims_tests_pass(claim), "{claim}");
        }
        for plain in [
            "I renamed the function.",
            "I could not run the tests.",
            "Added a test for parse().",
            "I passed the file path to the parser; it is green on the page.",
        ] {
            assert!(!claims_tests_pass(plain), "{plain}");
        }
    }
}
