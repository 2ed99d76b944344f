//! The OpenAI Chat Completions client (`POST {base}/chat/completions`, `stream: true`). It serves OpenAI
//! and every OpenAI-compatible server (OpenRouter, Ollama, llama.cpp, LM Studio, vLLM) by base URL.

mod body;
mod decode;
mod reasoning_details;
pub mod request;

use reqwest::header::{AUTHORIZATION, HeaderMap};
use tokio_util::sync::CancellationToken;

use crate::client::{ModelClient, ModelRequest, ModelStream};
use crate::continued_body::WriteBody;
use crate::error::LlmError;
use crate::http::{BodyWriter, StreamingCall, http_client_for, insert_key_header, with_key_hint};
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
    body: BodyWriter,
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
            body: BodyWriter::default(),
        })
    }
}

impl ModelClient for OpenAiChatClient {
    fn stream(&self, request: ModelRequest, cancel: CancellationToken) -> ModelStream {
        let call = StreamingCall {
            client: self.http.clone(),
            url: format!("{}/chat/completions", self.settings.base_url),
            headers: self.headers.clone(),
            body: ChatBody::new(&request, ChatDialect::for_settings(&self.settings))
                .write(&self.body),
            retry: self.settings.retry,
            idle_timeout: self.settings.idle_timeout,
            classify: decode::classify_error,
            new_decoder: || Box::new(ChatStreamDecoder::default()),
        };
        with_key_hint(call.start(cancel), &self.settings)
    }
}
