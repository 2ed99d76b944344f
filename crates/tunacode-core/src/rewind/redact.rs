//! Secrets out of an export: API keys and tokens in any text of the transcript (prompts, answers,
//! tool arguments and results) become `[REDACTED]`. Redacting twice changes nothing, so an
//! imported export exports the same again.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// What is replaced.
pub(crate) const REDACTED: &str = "[REDACTED]";

/// Provider keys and tokens by their well-known shapes, bearer and basic credentials, JWTs and
/// private key blocks.
static SECRET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}",
        r"|sk_(?:live|test)_[A-Za-z0-9]{16,}",
        r"|AIza[0-9A-Za-z_\-]{30,}",
        r"|gh[pousr]_[A-Za-z0-9]{30,}",
        r"|github_pat_[A-Za-z0-9_]{30,}",
        r"|glpat-[A-Za-z0-9_\-]{20,}",
        r"|(?:hf|gsk|npm)_[A-Za-z0-9]{30,}",
        r"|xai-[A-Za-z0-9]{30,}",
        r"|xox[abprs]-[A-Za-z0-9\-]{10,}",
        r"|AKIA[0-9A-Z]{16}",
        r"|eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
        r"|(?i:bearer|basic)\s+[A-Za-z0-9._~+/\-]{16,}=*",
        r"|-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY(?: BLOCK)?-----",
    ))
    .expect("a valid pattern")
});

/// Values given to names that say they are secret (`OPENAI_API_KEY=…`, `"apiKey": "…"`,
/// `x-api-key: …`, `client_secret=…`, `DB_PASSWORD: …`).
static ASSIGNED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?i)\b([A-Za-z0-9_\-]*(?:api[_\-]?key|secret|token|passw(?:or)?d|access[_\-]?key)[A-Za-z0-9_]*)"#,
        r#"(["']?\s*[=:]\s*["']?)([^\s"'\[,}]{8,})"#,
    ))
    .expect("a valid pattern")
});

/// The password of a URL's credentials (`postgres://user:password@host`).
static URL_PASSWORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b([a-z][a-z0-9+.\-]*://[^/\s:@]+:)([^@\s/\[]+)@").expect("a valid pattern")
});

/// `text` with its secrets replaced.
pub(crate) fn redact_text(text: &str) -> String {
    let text = SECRET.replace_all(text, REDACTED);
    let text =
        URL_PASSWORD.replace_all(&text, |c: &regex::Captures| format!("{}{REDACTED}@", &c[1]));
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

    #[test]
    fn quoted_names_urls_jwts_and_more_token_shapes_are_redacted() {
        let text = concat!(
            r#"{"api_key": "abcd1234efgh5678", "clientSecret": "zzzzyyyyxxxx"} "#,
            "x-api-key: qwertyuiop123 postgres://app:hunter2hunter2@db:5432/x ",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ",
            "glpat-abcdefghijklmnopqrstu sk_live_abcdefghijklmnopqr Basic dXNlcjpwYXNzd29yZDEyMw== ",
            "max_tokens: 4096 keep",
        );
        let once = redact_text(text);
        for secret in [
            "abcd1234efgh5678",
            "zzzzyyyyxxxx",
            "qwertyuiop123",
            "hunter2hunter2",
            "dozjgNryP4J3",
            "glpat-",
            "sk_live_",
            "dXNlcjpw",
        ] {
            assert!(!once.contains(secret), "{secret}: {once}");
        }
        assert!(
            once.contains("postgres://app:[REDACTED]@db:5432/x"),
            "{once}"
        );
        assert!(once.contains("max_tokens: 4096 keep"), "{once}");
        assert_eq!(redact_text(&once), once);
    }
}
