//! The OpenAI Responses client (`POST {base}/responses`, `stream: true`). Calls are stateless
//! (`store: false`): the whole history is sent each time, reasoning items included with their
//! encrypted content so the model keeps its chain of thought across tool calls.

mod body;
mod decode;
mod request;

use reqwest::header::{AUTHORIZATION, HeaderMap};
use tokio_util::sync::CancellationToken;

use crate::client::{ModelClient, ModelRequest, ModelStream};
use crate::continued_body::WriteBody;
use crate::error::LlmError;
use crate::http::{BodyWriter, StreamingCall, http_client_for, insert_key_header, with_key_hint};
use crate::openai_chat::classify_error;
use crate::provider::ProviderSettings;

pub use decode::ResponsesStreamDecoder;
pub use request::{PROVIDER_TAG, ResponsesBody, build_body};

/// A client for OpenAI Responses (`POST {base}/responses`).
#[derive(Debug, Clone)]
pub struct OpenAiResponsesClient {
    settings: ProviderSettings,
    http: reqwest::Client,
    headers: HeaderMap,
    body: BodyWriter,
}

impl OpenAiResponsesClient {
    /// A client with the given settings (uses the shared, pooled HTTP client).
    pub fn new(settings: ProviderSettings) -> Result<Self, LlmError> {
        let mut headers = HeaderMap::new();
        insert_key_header(
            &mut headers,
            AUTHORIZATION,
            "Bearer ",
            settings.api_key.as_deref(),
        )?;
        Ok(OpenAiResponsesClient {
            http: http_client_for(&settings.base_url)?,
            settings,
            headers,
            body: BodyWriter::default(),
        })
    }
}

impl ModelClient for OpenAiResponsesClient {
    fn stream(&self, request: ModelRequest, cancel: CancellationToken) -> ModelStream {
        let call = StreamingCall {
            client: self.http.clone(),
            url: format!("{}/responses", self.settings.base_url),
            headers: self.headers.clone(),
            body: ResponsesBody(&request).write(&self.body),
            retry: self.settings.retry,
            idle_timeout: self.settings.idle_timeout,
            classify: classify_error,
            new_decoder: || Box::new(ResponsesStreamDecoder::default()),
        };
        with_key_hint(call.start(cancel), &self.settings)
    }
}
