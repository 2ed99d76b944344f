//! The Anthropic Messages client (`POST {base}/messages`, `stream: true`).
//!
//! Requests are built by [`build_body`] from canonical history; the SSE stream is decoded by
//! [`AnthropicStreamDecoder`]. Thinking blocks come back as thinking parts with their signature (or
//! redacted data) and `provider_details.provider = "anthropic"`, and are sent back byte-exact in later
//! requests. Retries, the idle timeout and cancellation are the shared streaming call's.

mod body;
mod decode;
mod error;
mod request;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio_util::sync::CancellationToken;

use crate::client::{ModelClient, ModelRequest, ModelStream};
use crate::continued_body::WriteBody;
use crate::error::LlmError;
use crate::http::{BodyWriter, StreamingCall, http_client_for, insert_key_header, with_key_hint};
use crate::provider::ProviderSettings;

pub use decode::AnthropicStreamDecoder;
pub use request::{AnthropicBody, DEFAULT_MAX_TOKENS, build_body, thinking_budget};

/// The API version sent in `anthropic-version`.
pub const API_VERSION: &str = "2023-06-01";

/// A client for Anthropic Messages (`POST {base}/messages`).
#[derive(Debug, Clone)]
pub struct AnthropicClient {
    settings: ProviderSettings,
    http: reqwest::Client,
    headers: HeaderMap,
    body: BodyWriter,
}

impl AnthropicClient {
    /// A client with the given settings (uses the shared, pooled HTTP client). The key goes in
    /// `x-api-key`, marked sensitive so it never shows up in debug output.
    pub fn new(settings: ProviderSettings) -> Result<Self, LlmError> {
        let mut headers = HeaderMap::new();
        headers.insert(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static(API_VERSION),
        );
        insert_key_header(
            &mut headers,
            HeaderName::from_static("x-api-key"),
            "",
            settings.api_key.as_deref(),
        )?;
        Ok(AnthropicClient {
            http: http_client_for(&settings.base_url)?,
            settings,
            headers,
            body: BodyWriter::default(),
        })
    }
}

impl ModelClient for AnthropicClient {
    fn stream(&self, request: ModelRequest, cancel: CancellationToken) -> ModelStream {
        let call = StreamingCall {
            client: self.http.clone(),
            url: format!("{}/messages", self.settings.base_url),
            headers: self.headers.clone(),
            body: AnthropicBody(&request).write(&self.body),
            retry: self.settings.retry,
            idle_timeout: self.settings.idle_timeout,
            classify: error::classify_error,
            new_decoder: || Box::new(AnthropicStreamDecoder::default()),
        };
        with_key_hint(call.start(cancel), &self.settings)
    }
}
