//! Retry policy: jittered exponential backoff that honours the provider's `retry-after` /
//! `retry-after-ms` headers.

use std::time::{Duration, SystemTime};

/// How often and how long a client retries a failed call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// Delay before the first retry (doubled each time).
    pub base_delay: Duration,
    /// Cap on the computed backoff.
    pub max_delay: Duration,
    /// A provider asking to wait longer than this is not waited for; the error is reported.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(120),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `attempt` (1-based): the provider's ask when given, else
    /// exponential backoff with "equal jitter" (half fixed, half random) so clients do not retry in step.
    /// `None` when the provider asks for more than `max_retry_after`.
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Option<Duration> {
        if let Some(asked) = retry_after {
            return (asked <= self.max_retry_after).then_some(asked);
        }
        let exp = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(attempt.saturating_sub(1)));
        let capped = exp.min(self.max_delay);
        let half = capped / 2;
        Some(half + half.mul_f64(fastrand::f64()))
    }
}

/// Reads `retry-after-ms` (milliseconds) or `retry-after` (seconds, or an HTTP date).
pub fn parse_retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        // A wait too long for a `Duration` is still a wait longer than worth waiting.
        return Some(Duration::try_from_secs_f64(ms / 1000.0).unwrap_or(Duration::MAX));
    }
    let value = text("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0)
            .then(|| Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// The wait a rate-limited response asks for when it sends no `retry-after`: OpenAI's
/// `x-ratelimit-reset-requests` / `x-ratelimit-reset-tokens` (`1s`, `6m0s`, `20ms`; the longer of the
/// two that is exhausted), else a wait written in the error message (`Please try again in 1.2s`).
pub fn wait_hint(headers: &reqwest::header::HeaderMap, body: &str) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(parse_go_duration)
    };
    let exhausted = |kind: &str| {
        headers
            .get(format!("x-ratelimit-remaining-{kind}"))
            .and_then(|v| v.to_str().ok())
            .is_none_or(|v| v.trim() == "0")
    };
    let from_headers = ["requests", "tokens"]
        .into_iter()
        .filter(|kind| exhausted(kind))
        .filter_map(|kind| header(&format!("x-ratelimit-reset-{kind}")))
        .max();
    from_headers.or_else(|| wait_in_text(body))
}

/// A wait written in a message: `try again in 1.2s`, `retry in 20ms`, `try again in 6m0s`,
/// `try again in 3 seconds`.
fn wait_in_text(text: &str) -> Option<Duration> {
    let lower = text.to_ascii_lowercase();
    ["try again in ", "retry in ", "retry after "]
        .iter()
        .find_map(|cue| {
            let at = lower.find(cue)? + cue.len();
            let rest = &lower[at..];
            let token: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == ' ')
                .collect();
            // A sentence's full stop is not part of the number.
            let words: Vec<&str> = token
                .split_whitespace()
                .map(|w| w.trim_end_matches('.'))
                .collect();
            match words.as_slice() {
                [n, unit, ..] if unit.starts_with("second") => parse_go_duration(&format!("{n}s")),
                [n, unit, ..] if unit.starts_with("minute") => parse_go_duration(&format!("{n}m")),
                [first, ..] => parse_go_duration(first),
                [] => None,
            }
        })
}

/// Parses a Go-style duration: `1.5s`, `20ms`, `6m0s`, `1h2m3s`.
fn parse_go_duration(text: &str) -> Option<Duration> {
    let mut rest = text.trim();
    let mut total = 0.0f64;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let value: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let (unit, len) = if rest.starts_with("ms") {
            (0.001, 2)
        } else if rest.starts_with('h') {
            (3600.0, 1)
        } else if rest.starts_with('m') {
            (60.0, 1)
        } else if rest.starts_with('s') {
            (1.0, 1)
        } else {
            return None;
        };
        total += value * unit;
        rest = &rest[len..];
    }
    (total.is_finite() && total >= 0.0)
        .then(|| Duration::try_from_secs_f64(total).unwrap_or(Duration::MAX))
}

/// A wait as a person reads it: `45 s`, `4 min`, `2 h 5 min`.
pub fn human_wait(wait: Duration) -> String {
    let secs = wait.as_secs();
    match secs {
        0..=119 => format!("{:.0} s", wait.as_secs_f64().ceil()),
        120..=7199 => format!("{} min", secs.div_ceil(60)),
        7200..=2_592_000 => format!("{} h {} min", secs / 3600, (secs % 3600) / 60),
        _ => "more than a month".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue};

    #[test]
    fn backoff_grows_is_jittered_and_capped() {
        let policy = RetryPolicy::default();
        for attempt in 1..=8 {
            let d = policy.delay(attempt, None).unwrap();
            let full = (policy.base_delay * 2u32.pow(attempt - 1)).min(policy.max_delay);
            assert!(
                d >= full / 2 && d <= full,
                "attempt {attempt}: {d:?} vs {full:?}"
            );
        }
    }

    #[test]
    fn retry_after_is_honoured_within_the_limit() {
        let policy = RetryPolicy::default();
        assert_eq!(
            policy.delay(1, Some(Duration::from_secs(3))),
            Some(Duration::from_secs(3))
        );
        assert_eq!(policy.delay(1, Some(Duration::from_secs(3600))), None);
    }

    #[test]
    fn retry_after_headers_parse() {
        let mut h = HeaderMap::new();
        assert_eq!(parse_retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(parse_retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("1500"));
        assert_eq!(parse_retry_after(&h), Some(Duration::from_millis(1500)));
        let mut h = HeaderMap::new();
        let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(30));
        h.insert("retry-after", HeaderValue::from_str(&later).unwrap());
        let d = parse_retry_after(&h).unwrap();
        assert!(
            d > Duration::from_secs(27) && d <= Duration::from_secs(30),
            "{d:?}"
        );
    }

    #[test]
    fn waits_are_read_from_rate_limit_headers_and_messages() {
        let mut h = HeaderMap::new();
        h.insert(
            "x-ratelimit-remaining-requests",
            HeaderValue::from_static("0"),
        );
        h.insert(
            "x-ratelimit-reset-requests",
            HeaderValue::from_static("6m0s"),
        );
        h.insert(
            "x-ratelimit-remaining-tokens",
            HeaderValue::from_static("5000"),
        );
        h.insert("x-ratelimit-reset-tokens", HeaderValue::from_static("2h"));
        assert_eq!(
            wait_hint(&h, ""),
            Some(Duration::from_secs(360)),
            "only the exhausted limit"
        );
        let none = HeaderMap::new();
        let said = |text: &str| wait_hint(&none, text);
        assert_eq!(
            said("Rate limit reached. Please try again in 1.2s. Visit ..."),
            Some(Duration::from_millis(1200))
        );
        assert_eq!(
            said("Please try again in 20ms."),
            Some(Duration::from_millis(20))
        );
        assert_eq!(said("retry after 3 seconds"), Some(Duration::from_secs(3)));
        assert_eq!(said("slow down"), None);
        assert_eq!(human_wait(Duration::from_secs(7500)), "2 h 5 min");
        // Hostile figures are a very long wait, not a panic.
        assert_eq!(
            said("try again in 99999999999999999999h"),
            Some(Duration::MAX)
        );
        let mut huge = HeaderMap::new();
        huge.insert("retry-after", HeaderValue::from_static("1e30"));
        assert_eq!(parse_retry_after(&huge), Some(Duration::MAX));
        assert_eq!(human_wait(Duration::from_millis(1200)), "2 s");
    }
}
