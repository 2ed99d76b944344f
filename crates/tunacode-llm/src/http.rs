//! The shared HTTP client and the streaming call with retries. Provider clients supply how to build the
//! request body and how to turn SSE events into [`ModelEvent`]s; this module owns the retry loop, the
//! idle timeout, cancellation, and the rule that nothing is retried once output has reached the caller.

use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use futures::StreamExt;
use reqwest::header::HeaderMap;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::client::{ModelEvent, ModelStream};
use crate::error::{LlmError, describe_reqwest_error};
use crate::provider::ProviderSettings;
use crate::retry::{RetryPolicy, parse_retry_after, wait_hint};
use crate::sse::{SseEvent, SseReader};

/// Builds (once) the process-wide HTTP client: rustls with the ring provider, TCP_NODELAY, pooled
/// connections reused across calls.
pub(crate) fn shared_http_client() -> Result<reqwest::Client, LlmError> {
    static CLIENT: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
    CLIENT
        .get_or_init(|| builder().build().map_err(|e| e.to_string()))
        .clone()
        .map_err(|message| LlmError::Config { message })
}

/// The process-wide client for calls to `base_url`: for a plain `http://` URL (a local server) one
/// that never loads the system's certificates (about 150 files read at every start otherwise), else
/// the TLS one.
pub(crate) fn http_client_for(base_url: &str) -> Result<reqwest::Client, LlmError> {
    if !base_url.starts_with("http://") {
        return shared_http_client();
    }
    static PLAIN: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
    PLAIN
        .get_or_init(|| {
            // No roots: a redirect to https fails rather than loading them.
            let plain = builder().tls_certs_only(std::iter::empty());
            plain.build().map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|message| LlmError::Config { message })
}

/// What every client of the process is built with.
fn builder() -> reqwest::ClientBuilder {
    // Ignore the error: another part of the process may have installed a provider already.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(15))
        .tcp_nodelay(true)
        .pool_idle_timeout(Duration::from_secs(90))
        .user_agent(concat!("tunacode/", env!("CARGO_PKG_VERSION")))
}

/// What a wire format decides about one SSE event.
pub(crate) enum Decoded {
    /// Events to pass on (possibly none, e.g. for keep-alives).
    Events(Vec<ModelEvent>),
    /// The stream's end marker.
    Done,
}

/// Turns the SSE events of one response into model events. One decoder per attempt.
pub(crate) trait StreamDecoder: Send {
    /// Decodes one SSE event.
    fn decode(&mut self, event: &SseEvent) -> Result<Decoded, LlmError>;
    /// Whether the stream may end without an end marker (a finish reason was seen).
    fn finished(&self) -> bool;
}

/// Sizes a client's request body buffers from its last body: a long history's body is
/// large, and growing it by doubling would copy it several times on every call.
#[derive(Debug, Clone, Default)]
pub(crate) struct BodyWriter {
    last: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl BodyWriter {
    /// Room for the next body: its last one's size and a margin.
    pub fn capacity(&self) -> usize {
        let size = self.last.load(std::sync::atomic::Ordering::Relaxed);
        size + size / 8 + 1024
    }

    /// A body of `len` bytes was written (the next is sized from it).
    pub fn wrote(&self, len: usize) {
        self.last.store(len, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Turns an HTTP error body into an error (per wire format).
pub(crate) type ErrorClassifier = fn(u16, &str, Option<Duration>) -> LlmError;

/// One prepared HTTP call: where, with what, and how to read the answer.
pub(crate) struct StreamingCall {
    pub client: reqwest::Client,
    pub url: String,
    pub headers: HeaderMap,
    /// The request body, serialised once (retries send the same bytes).
    pub body: bytes::Bytes,
    pub retry: RetryPolicy,
    pub idle_timeout: Duration,
    pub classify: ErrorClassifier,
    pub new_decoder: fn() -> Box<dyn StreamDecoder>,
}

impl StreamingCall {
    /// Runs the call in a task and returns its events as a stream.
    pub(crate) fn start(self, cancel: CancellationToken) -> ModelStream {
        let (tx, rx) = mpsc::channel(256);
        tokio::spawn(async move {
            let result = tokio::select! {
                r = self.run(&tx) => r,
                _ = cancel.cancelled() => Err(LlmError::Cancelled),
                // The consumer went away: stop at once instead of at the next send.
                _ = tx.closed() => Ok(()),
            };
            if let Err(err) = result {
                let _ = tx.send(Err(err)).await;
            }
        });
        Box::pin(futures::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|item| (item, rx))
        }))
    }

    async fn run(&self, tx: &mpsc::Sender<Result<ModelEvent, LlmError>>) -> Result<(), LlmError> {
        let mut attempt = 0u32;
        loop {
            let mut delivered = false;
            let err = match self.attempt(tx, &mut delivered).await {
                Ok(()) => return Ok(()),
                Err(err) => err,
            };
            attempt += 1;
            if delivered || !err.is_retryable() || attempt > self.retry.max_retries {
                return Err(err);
            }
            let asked = match &err {
                LlmError::RateLimit { retry_after, .. } => *retry_after,
                _ => None,
            };
            let Some(delay) = self.retry.delay(attempt, asked) else {
                // Longer than is worth waiting: a quota that resets later, said with its time.
                return Err(match err {
                    LlmError::RateLimit {
                        message,
                        retry_after,
                    } => LlmError::QuotaExceeded {
                        message,
                        resets_in: retry_after,
                    },
                    other => other,
                });
            };
            tracing::warn!(attempt, ?delay, error = %err, "retrying model call");
            let notice = ModelEvent::Retrying {
                attempt,
                of: self.retry.max_retries,
                delay_ms: delay.as_millis() as u64,
                error: err.to_string(),
            };
            if tx.send(Ok(notice)).await.is_err() {
                return Ok(());
            }
            tokio::time::sleep(delay).await;
        }
    }

    /// One HTTP attempt. Sets `delivered` once a model event has been passed on.
    async fn attempt(
        &self,
        tx: &mpsc::Sender<Result<ModelEvent, LlmError>>,
        delivered: &mut bool,
    ) -> Result<(), LlmError> {
        let response = self
            .client
            .post(&self.url)
            .headers(self.headers.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(self.body.clone())
            .send()
            .await
            .map_err(|e| LlmError::Network {
                message: describe_reqwest_error(&e),
            })?;
        let status = response.status().as_u16();
        if !response.status().is_success() {
            let headers = response.headers().clone();
            let body = read_bounded_text(response, 64 * 1024).await;
            let retry_after = parse_retry_after(&headers).or_else(|| match status {
                429 => wait_hint(&headers, &body),
                _ => None,
            });
            return Err((self.classify)(status, &body, retry_after));
        }
        let mut decoder = (self.new_decoder)();
        let mut reader = SseReader::new(response.bytes_stream().boxed());
        loop {
            let next = tokio::time::timeout(self.idle_timeout, reader.next_event())
                .await
                .map_err(|_| LlmError::IdleTimeout(self.idle_timeout))??;
            let Some(event) = next else {
                if decoder.finished() {
                    return Ok(());
                }
                return Err(LlmError::Network {
                    message: "the stream ended before the response was complete".into(),
                });
            };
            match decoder.decode(&event)? {
                Decoded::Done => return Ok(()),
                Decoded::Events(events) => {
                    for ev in events {
                        *delivered = true;
                        if tx.send(Ok(ev)).await.is_err() {
                            return Ok(());
                        }
                    }
                }
            }
        }
    }
}

async fn read_bounded_text(response: reqwest::Response, limit: usize) -> String {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(Ok(chunk)) = stream.next().await {
        body.extend_from_slice(&chunk);
        if body.len() >= limit {
            body.truncate(limit);
            break;
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}

/// Makes auth errors of a stream say which variable or config key to set (the settings' `key_hint`,
/// e.g. `OPENAI_API_KEY`) and in which config file (`config_file`).
pub(crate) fn with_key_hint(stream: ModelStream, settings: &ProviderSettings) -> ModelStream {
    let Some(hint) = settings.key_hint.clone() else {
        return stream;
    };
    let config_file = settings.config_file.clone();
    Box::pin(stream.map(move |item| {
        item.map_err(|err| match err {
            LlmError::Auth { status, message } => LlmError::Auth {
                status,
                message: format!("{message} {}", key_hint_text(&hint, config_file.as_deref())),
            },
            other => other,
        })
    }))
}

/// `(set {hint} in the environment or under "env" in {config file})`.
fn key_hint_text(hint: &str, config_file: Option<&Path>) -> String {
    match config_file {
        Some(path) => format!(
            "(set {hint} in the environment or under \"env\" in {})",
            path.display()
        ),
        None => format!("(set {hint} in the environment or under \"env\" in your config file)"),
    }
}

/// Puts the API key (if any) into `headers` under `name`, as `{prefix}{key}` (e.g. `Bearer `), marked
/// sensitive so it never shows in logs or debug output.
pub(crate) fn insert_key_header(
    headers: &mut HeaderMap,
    name: reqwest::header::HeaderName,
    prefix: &str,
    key: Option<&str>,
) -> Result<(), LlmError> {
    let Some(key) = key else { return Ok(()) };
    let mut value =
        reqwest::header::HeaderValue::from_str(&format!("{prefix}{key}")).map_err(|_| {
            LlmError::Config {
                message: "the API key contains characters that cannot be sent in a header".into(),
            }
        })?;
    value.set_sensitive(true);
    headers.insert(name, value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_hint_names_the_config_file_in_use() {
        assert_eq!(
            key_hint_text(
                "OPENAI_API_KEY",
                Some(Path::new("/srv/conf/tunacode-custom.json"))
            ),
            "(set OPENAI_API_KEY in the environment or under \"env\" in \
             /srv/conf/tunacode-custom.json)"
        );
        assert_eq!(
            key_hint_text("OPENAI_API_KEY", None),
            "(set OPENAI_API_KEY in the environment or under \"env\" in your config file)"
        );
    }
}
