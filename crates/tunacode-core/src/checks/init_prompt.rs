//! `/init`: the prompt that asks the model for the repository's AGENTS.md and, with the checks the
//! build files suggest, for a `.tunacode/checks.json` it has verified (which runs once the user
//! approves it).

use tunacode_store::CheckSpec;

/// The message `/init` sends, with the `proposed` checks.
pub fn init_prompt(proposed: &[CheckSpec]) -> String {
    let mut text = String::from(
        "Write an AGENTS.md file at the root of this repository for AI coding agents: explore the \
         repository first (build system, layout, test commands, conventions), then write concise \
         sections: project overview, how to build and run, how to test, code style and \
         conventions, and anything an agent must know before changing code. If AGENTS.md exists, \
         improve it instead of overwriting it.",
    );
    let checks = serde_json::to_string_pretty(proposed).unwrap_or_default();
    let how = "Then write `.tunacode/checks.json`: the commands that prove a change in this \
        repository, as a JSON list of {\"name\", \"kind\": \"lint\"|\"typecheck\"|\"test\", \
        \"command\", \"files\": [globs], \"when\": \"after_edit\"|\"at_completion\", \
        \"timeout_secs\"}. `after_edit` is for fast checks (a compiler or linter, seconds), \
        `at_completion` for the rest (the tests). Run each command with bash first and keep only \
        those that work here; if the file exists, improve it instead. The user approves the file \
        with /checks approve before TunaCode runs it.";
    if proposed.is_empty() {
        text.push_str(&format!(
            "\n\n{how} The build files suggest no checks: find the project's own commands (its \
             README, CI configuration, scripts)."
        ));
    } else {
        text.push_str(&format!(
            "\n\n{how} The build files suggest these:\n\n```json\n{checks}\n```"
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_carries_the_proposed_checks_as_json() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "[package]").unwrap();
        let prompt = init_prompt(&crate::checks::propose::propose_checks(dir.path()));
        assert!(prompt.contains("AGENTS.md"));
        assert!(
            prompt.contains("\"command\": \"cargo check --quiet --all-targets\""),
            "{prompt}"
        );
        assert!(prompt.contains("/checks approve"));
        assert!(init_prompt(&[]).contains("suggest no checks"));
    }
}
