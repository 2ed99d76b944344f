//! Secrets out of an export: API keys and tokens in any text of the transcript (prompts, answers,
//! tool arguments and results) become `[REDACTED]`. Redacting twice changes nothing, so an
//! imported export exports the same again.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// What is replaced.
pub(crate) const REDACTED: &str = "[REDACTED]";

/// Provider keys and tokens by their well-known shapes, and the values of `*_KEY=`, `*_TOKEN=`,
/// `*_SECRET=` and `password=` assignments and of `Authorization: Bearer` headers.
static SECRET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}",
        r"|AIza[0-9A-Za-z_\-]{30,}",
        r"|gh[pousr]_[A-Za-z0-9]{30,}",
        r"|github_pat_[A-Za-z0-9_]{30,}",
        r"|xox[abprs]-[A-Za-z0-9\-]{10,}",
        r"|AKIA[0-9A-Z]{16}",
        r"|(?i:bearer)\s+[A-Za-z0-9._~+/\-]{16,}=*",
        r"|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    ))
    .expect("a valid pattern")
});

static ASSIGNED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b([A-Z0-9_]*(?:API_KEY|_KEY|_TOKEN|_SECRET|PASSWORD))(\s*[=:]\s*["']?)([^\s"'\[]{8,})"#)
        .expect("a valid pattern")
});

/// `text` with its secrets replaced.
pub(crate) fn redact_text(text: &str) -> String {
    let text = SECRET.replace_all(text, REDACTED);
    ASSIGNED
        .replace_all(&text, |c: &regex::Captures| {
            format!("{}{}{REDACTED}", &c[1], &c[2])
        })
        .into_owned()
}

/// Redacts every string in `value`.
pub(crate) fn redact_value(value: &mut Value) {
    match value {
        Value::String(text) => {
            let redacted = redact_text(text);
            if redacted != *text {
                *text = redacted;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_value),
        Value::Object(map) => map.values_mut().for_each(redact_value),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_tokens_and_assignments_are_redacted_and_redacting_again_changes_nothing() {
        let text = "OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234 and \
                    Authorization: Bearer abcdefghijklmnopqrstuvwx and ghp_abcdefghijklmnopqrstuvwxyz0123456789 \
                    DB_PASSWORD: \"hunter2hunter2\" keep sk-short";
        let once = redact_text(text);
        assert!(!once.contains("abcdefghijklmnop1234"), "{once}");
        assert!(!once.contains("qrstuvwx"), "{once}");
        assert!(!once.contains("ghp_"), "{once}");
        assert!(!once.contains("hunter2"), "{once}");
        assert!(once.contains("OPENAI_API_KEY=[REDACTED]"), "{once}");
        assert!(once.contains("keep sk-short"), "{once}");
        assert_eq!(redact_text(&once), once);
    }
}
