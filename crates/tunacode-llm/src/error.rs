//! [`LlmError`]: every way a model call fails, with the retry policy in one place.

use std::time::Duration;

/// A failed model call.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    /// The key is missing, wrong or not allowed.
    #[error("authentication failed (HTTP {status}): {message}")]
    Auth {
        /// HTTP status.
        status: u16,
        /// Provider message plus what to set.
        message: String,
    },
    /// Too many requests.
    #[error("rate limited: {message}")]
    RateLimit {
        /// Provider message.
        message: String,
        /// What the provider asked us to wait.
        retry_after: Option<Duration>,
    },
    /// The account is out of credit or quota (or the provider asks to wait longer than is worth
    /// waiting); retrying now will not help.
    #[error("quota exceeded: {message}{}", resets_note(.resets_in))]
    QuotaExceeded {
        /// Provider message.
        message: String,
        /// When the provider said the quota resets.
        resets_in: Option<Duration>,
    },
    /// The provider is overloaded (HTTP 529 or 503, Anthropic's `overloaded_error`, Google's
    /// `UNAVAILABLE`): retried, then the configured fallback models are tried.
    #[error("provider overloaded (HTTP {status}): {message}")]
    Overloaded {
        /// HTTP status (0 when reported inside a stream).
        status: u16,
        /// Provider message.
        message: String,
    },
    /// The conversation does not fit the model's context window.
    #[error("context window exceeded: {message}")]
    ContextOverflow {
        /// Provider message.
        message: String,
    },
    /// The provider rejected the request (bad model name, bad parameter, …).
    #[error("request rejected (HTTP {status}): {message}")]
    BadRequest {
        /// HTTP status.
        status: u16,
        /// Provider message.
        message: String,
    },
    /// A provider-side failure (5xx, 408, 409, overloaded).
    #[error("provider error (HTTP {status}): {message}")]
    Server {
        /// HTTP status (0 when reported inside a stream).
        status: u16,
        /// Provider message.
        message: String,
    },
    /// The connection failed or the stream was cut before its end.
    #[error("network error: {message}")]
    Network {
        /// What happened.
        message: String,
    },
    /// The stream sent nothing for too long.
    #[error("the provider sent nothing for {}s (stream idle timeout)", .0.as_secs_f64())]
    IdleTimeout(Duration),
    /// The provider sent something we cannot read.
    #[error("invalid response from provider: {message}")]
    InvalidResponse {
        /// What was wrong.
        message: String,
    },
    /// Configuration is missing or wrong (no key, unknown provider, …).
    #[error("{message}")]
    Config {
        /// What to fix.
        message: String,
    },
    /// The caller cancelled the call.
    #[error("cancelled")]
    Cancelled,
}

impl LlmError {
    /// Whether trying the same call again may succeed. The single source of the retry policy.
    pub fn is_retryable(&self) -> bool {
        match self {
            LlmError::RateLimit { .. }
            | LlmError::Server { .. }
            | LlmError::Overloaded { .. }
            | LlmError::Network { .. }
            | LlmError::IdleTimeout(_) => true,
            LlmError::Auth { .. }
            | LlmError::QuotaExceeded { .. }
            | LlmError::ContextOverflow { .. }
            | LlmError::BadRequest { .. }
            | LlmError::InvalidResponse { .. }
            | LlmError::Config { .. }
            | LlmError::Cancelled => false,
        }
    }

    /// A short machine-readable name of the error kind.
    pub fn kind(&self) -> &'static str {
        match self {
            LlmError::Auth { .. } => "auth",
            LlmError::RateLimit { .. } => "rate_limit",
            LlmError::QuotaExceeded { .. } => "quota",
            LlmError::ContextOverflow { .. } => "context_overflow",
            LlmError::BadRequest { .. } => "bad_request",
            LlmError::Server { .. } => "server",
            LlmError::Overloaded { .. } => "overloaded",
            LlmError::Network { .. } => "network",
            LlmError::IdleTimeout(_) => "idle_timeout",
            LlmError::InvalidResponse { .. } => "invalid_response",
            LlmError::Config { .. } => "config",
            LlmError::Cancelled => "cancelled",
        }
    }

    /// Classifies an HTTP error response from its status and the provider's message and code.
    pub fn from_status(
        status: u16,
        message: String,
        code: &str,
        retry_after: Option<Duration>,
    ) -> Self {
        if is_context_overflow(code, &message) {
            return LlmError::ContextOverflow { message };
        }
        match status {
            401 | 403 => LlmError::Auth { status, message },
            429 if code == "insufficient_quota" || message.contains("quota") => {
                LlmError::QuotaExceeded {
                    message,
                    resets_in: retry_after,
                }
            }
            429 => LlmError::RateLimit {
                message,
                retry_after,
            },
            503 | 529 => LlmError::Overloaded { status, message },
            408 | 409 | 500..=599 => LlmError::Server { status, message },
            _ => LlmError::BadRequest { status, message },
        }
    }
}

/// `; it resets in 2h 5m` when the reset time is known.
fn resets_note(resets_in: &Option<Duration>) -> String {
    match resets_in {
        Some(d) => format!("; it resets in {}", crate::retry::human_wait(*d)),
        None => String::new(),
    }
}

/// Whether a provider error says the prompt is too long for the model.
pub(crate) fn is_context_overflow(code: &str, message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    code == "context_length_exceeded"
        || lower.contains("maximum context length")
        || lower.contains("context window")
        || lower.contains("context length")
        || lower.contains("prompt is too long")
        || lower.contains("too many tokens")
}

/// A reqwest error as one line, with its source chain (which says "connection refused" etc.).
pub(crate) fn describe_reqwest_error(err: &reqwest::Error) -> String {
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_kinds_and_retry_policy() {
        let cases = [
            (401, "", "bad key", "auth", false),
            (429, "", "slow down", "rate_limit", true),
            (
                429,
                "insufficient_quota",
                "You exceeded your current quota",
                "quota",
                false,
            ),
            (
                400,
                "context_length_exceeded",
                "too long",
                "context_overflow",
                false,
            ),
            (
                400,
                "",
                "This model's maximum context length is 8192 tokens",
                "context_overflow",
                false,
            ),
            (400, "", "bad param", "bad_request", false),
            (404, "", "no such model", "bad_request", false),
            (408, "", "timeout", "server", true),
            (409, "", "conflict", "server", true),
            (500, "", "boom", "server", true),
            (503, "", "overloaded", "overloaded", true),
            (529, "", "overloaded", "overloaded", true),
        ];
        for (status, code, message, kind, retryable) in cases {
            let err = LlmError::from_status(status, message.to_string(), code, None);
            assert_eq!(err.kind(), kind, "{status} {message}");
            assert_eq!(err.is_retryable(), retryable, "{status} {message}");
        }
        assert!(LlmError::IdleTimeout(Duration::from_secs(1)).is_retryable());
        assert!(!LlmError::Cancelled.is_retryable());
    }
}
