//! Anthropic error bodies (`{"type": "error", "error": {"type": …, "message": …}}`), sent as an HTTP
//! error response or as an `error` event inside a stream, → [`LlmError`] with the provider's message.

use std::time::Duration;

use serde_json::Value;

use crate::error::{LlmError, is_context_overflow};

/// An `error` event inside a stream (status 0 for provider-side failures, as [`LlmError::Server`]
/// documents).
pub(crate) fn error_event(error: &Value) -> LlmError {
    let kind = error.get("type").and_then(Value::as_str).unwrap_or("");
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| error.to_string());
    from_error_type(None, kind, message, None)
}

/// Classifies an HTTP error response: `{"type": "error", "error": {"type": …, "message": …}}`.
pub(crate) fn classify_error(status: u16, body: &str, retry_after: Option<Duration>) -> LlmError {
    let parsed: Option<Value> = serde_json::from_str(body.trim()).ok();
    let error = parsed.as_ref().and_then(|v| v.get("error"));
    let kind = error
        .and_then(|e| e.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let message = error
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| {
            let text = body.trim();
            if text.is_empty() {
                format!("HTTP {status}")
            } else {
                truncate(text, 500)
            }
        });
    from_error_type(Some(status), kind, message, retry_after)
}

/// Maps Anthropic's error `type` (with the HTTP status when there is one) to an [`LlmError`].
fn from_error_type(
    status: Option<u16>,
    kind: &str,
    message: String,
    retry_after: Option<Duration>,
) -> LlmError {
    let lower = message.to_ascii_lowercase();
    if is_context_overflow(kind, &message) {
        return LlmError::ContextOverflow { message };
    }
    if kind == "billing_error" || lower.contains("credit balance") {
        return LlmError::QuotaExceeded {
            message,
            resets_in: None,
        };
    }
    match kind {
        "overloaded_error" => LlmError::Overloaded {
            status: status.unwrap_or(0),
            message,
        },
        "api_error" | "timeout_error" => LlmError::Server {
            status: status.unwrap_or(0),
            message,
        },
        "rate_limit_error" => LlmError::RateLimit {
            message,
            retry_after,
        },
        "authentication_error" => LlmError::Auth {
            status: status.unwrap_or(401),
            message,
        },
        "permission_error" => LlmError::Auth {
            status: status.unwrap_or(403),
            message,
        },
        "invalid_request_error" | "not_found_error" | "request_too_large" => LlmError::BadRequest {
            status: status.unwrap_or(if kind == "not_found_error" { 404 } else { 400 }),
            message,
        },
        _ => match status {
            Some(status) => LlmError::from_status(status, message, kind, retry_after),
            None => LlmError::Server { status: 0, message },
        },
    }
}

pub(crate) fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn error_types_map_to_kinds_and_keep_the_message() {
        let body = |kind: &str, msg: &str| {
            json!({"type": "error", "error": {"type": kind, "message": msg}}).to_string()
        };
        let cases = [
            (529, "overloaded_error", "Overloaded", "overloaded", true),
            (500, "api_error", "Internal", "server", true),
            (429, "rate_limit_error", "slow down", "rate_limit", true),
            (
                401,
                "authentication_error",
                "invalid x-api-key",
                "auth",
                false,
            ),
            (403, "permission_error", "no", "auth", false),
            (
                400,
                "invalid_request_error",
                "prompt is too long: 210000 tokens > 200000 maximum",
                "context_overflow",
                false,
            ),
            (
                400,
                "invalid_request_error",
                "Your credit balance is too low",
                "quota",
                false,
            ),
            (
                400,
                "invalid_request_error",
                "max_tokens: bad",
                "bad_request",
                false,
            ),
            (404, "not_found_error", "model: x", "bad_request", false),
        ];
        for (status, kind, msg, want, retryable) in cases {
            let err = classify_error(status, &body(kind, msg), None);
            assert_eq!(err.kind(), want, "{kind}");
            assert_eq!(err.is_retryable(), retryable, "{kind}");
            assert!(err.to_string().contains(msg), "{err}");
        }
        assert_eq!(
            classify_error(
                429,
                &body("rate_limit_error", "slow"),
                Some(Duration::from_secs(2))
            ),
            LlmError::RateLimit {
                message: "slow".into(),
                retry_after: Some(Duration::from_secs(2))
            }
        );
        assert_eq!(
            classify_error(502, "<html>bad gateway</html>", None),
            LlmError::Server {
                status: 502,
                message: "<html>bad gateway</html>".into()
            }
        );
        assert_eq!(
            error_event(&json!({"type": "overloaded_error", "message": "Overloaded"})),
            LlmError::Overloaded {
                status: 0,
                message: "Overloaded".into()
            }
        );
        assert_eq!(
            error_event(&json!({"type": "invalid_request_error", "message": "bad"})),
            LlmError::BadRequest {
                status: 400,
                message: "bad".into()
            }
        );
    }
}
