//! The OpenAI Chat Completions client (`POST {base}/chat/completions`, `stream: true`). It serves OpenAI
//! and every OpenAI-compatible server (OpenRouter, Ollama, llama.cpp, LM Studio, vLLM) by base URL.

mod decode;
mod reasoning_details;
pub mod request;

use reqwest::header::{AUTHORIZATION, HeaderMap};
use tokio_util::sync::CancellationToken;

use crate::client::{ModelClient, ModelRequest, ModelStream};
use crate::error::LlmError;
use crate::http::{StreamingCall, http_client_for, insert_key_header, json_bytes, with_key_hint};
use crate::provider::ProviderSettings;

pub use decode::ChatStreamDecoder;
pub(crate) use decode::classify_error;
pub use reasoning_details::ReasoningDetails;
pub use request::{ChatBody, ChatDialect, build_body};

/// A client for one OpenAI-compatible endpoint.
#[derive(Debug, Clone)]
pub struct OpenAiChatClient {
    settings: ProviderSettings,
    http: reqwest::Client,
    headers: HeaderMap,
    /// The size of the last request body.
    last_body: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl OpenAiChatClient {
    /// A client with the given settings (uses the shared, pooled HTTP client).
    pub fn new(settings: ProviderSettings) -> Result<Self, LlmError> {
        let mut headers = HeaderMap::new();
        insert_key_header(
            &mut headers,
            AUTHORIZATION,
            "Bearer ",
            settings.api_key.as_deref(),
        )?;
        Ok(OpenAiChatClient {
            http: http_client_for(&settings.base_url)?,
            settings,
            headers,
            last_body: Default::default(),
        })
    }
}

impl OpenAiChatClient {
    /// The request body, written into a buffer sized from the last one (a long history's body is
    /// large; growing it by doubling would copy it several times).
    fn body_bytes(&self, request: &ModelRequest) -> bytes::Bytes {
        let size = self.last_body.load(std::sync::atomic::Ordering::Relaxed);
        let mut buf = Vec::with_capacity(size + size / 8 + 1024);
        let body = ChatBody::new(request, ChatDialect::for_settings(&self.settings));
        if serde_json::to_writer(&mut buf, &body).is_err() {
            return json_bytes(&body);
        }
        self.last_body
            .store(buf.len(), std::sync::atomic::Ordering::Relaxed);
        buf.into()
    }
}

impl ModelClient for OpenAiChatClient {
    fn stream(&self, request: ModelRequest, cancel: CancellationToken) -> ModelStream {
        let call = StreamingCall {
            client: self.http.clone(),
            url: format!("{}/chat/completions", self.settings.base_url),
            headers: self.headers.clone(),
            body: self.body_bytes(&request),
            retry: self.settings.retry,
            idle_timeout: self.settings.idle_timeout,
            classify: decode::classify_error,
            new_decoder: || Box::new(ChatStreamDecoder::default()),
        };
        with_key_hint(call.start(cancel), &self.settings)
    }
}
