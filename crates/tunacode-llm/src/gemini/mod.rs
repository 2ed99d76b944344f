//! The Google Gemini client (`POST {base}/models/{model}:streamGenerateContent?alt=sse`, key in the
//! `x-goog-api-key` header). Thought signatures Gemini puts on parts are kept byte-exact in the parts'
//! `provider_details` and sent back on the same parts in later requests.

mod body;
mod decode;
mod request;

use reqwest::header::{HeaderMap, HeaderName};
use tokio_util::sync::CancellationToken;

use crate::client::{ModelClient, ModelRequest, ModelStream};
use crate::continued_body::WriteBody;
use crate::error::LlmError;
use crate::http::{BodyWriter, StreamingCall, http_client_for, insert_key_header, with_key_hint};
use crate::provider::ProviderSettings;

pub use decode::GeminiStreamDecoder;
pub use request::{GeminiBody, SKIP_SIGNATURE, build_body};

/// The header carrying the API key.
const KEY_HEADER: &str = "x-goog-api-key";

/// A client for Google Gemini (`POST {base}/models/{model}:streamGenerateContent?alt=sse`).
#[derive(Debug, Clone)]
pub struct GeminiClient {
    settings: ProviderSettings,
    http: reqwest::Client,
    headers: HeaderMap,
    body: BodyWriter,
}

impl GeminiClient {
    /// A client with the given settings (uses the shared, pooled HTTP client).
    pub fn new(settings: ProviderSettings) -> Result<Self, LlmError> {
        let mut headers = HeaderMap::new();
        insert_key_header(
            &mut headers,
            HeaderName::from_static(KEY_HEADER),
            "",
            settings.api_key.as_deref(),
        )?;
        Ok(GeminiClient {
            http: http_client_for(&settings.base_url)?,
            settings,
            headers,
            body: BodyWriter::default(),
        })
    }

    /// The streaming URL for `model` (a `models/` prefix on the name is accepted).
    pub fn url(&self, model: &str) -> String {
        let model = model.strip_prefix("models/").unwrap_or(model);
        format!(
            "{}/models/{model}:streamGenerateContent?alt=sse",
            self.settings.base_url
        )
    }
}

impl ModelClient for GeminiClient {
    fn stream(&self, request: ModelRequest, cancel: CancellationToken) -> ModelStream {
        let call = StreamingCall {
            client: self.http.clone(),
            url: self.url(&request.model),
            headers: self.headers.clone(),
            body: GeminiBody(&request).write(&self.body),
            retry: self.settings.retry,
            idle_timeout: self.settings.idle_timeout,
            classify: decode::classify_error,
            new_decoder: || Box::new(GeminiStreamDecoder::default()),
        };
        with_key_hint(call.start(cancel), &self.settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ModelId;

    #[test]
    fn url_and_key_header() {
        let id = ModelId::parse("google:gemini-2.5-pro").unwrap();
        let settings = ProviderSettings::for_model(&id, None, Some("k-1".into())).unwrap();
        let client = GeminiClient::new(settings).unwrap();
        let expected = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse";
        assert_eq!(client.url("gemini-2.5-pro"), expected);
        assert_eq!(client.url("models/gemini-2.5-pro"), expected);
        let key = client.headers.get(KEY_HEADER).unwrap();
        assert!(key.is_sensitive());
        assert_eq!(key.to_str().unwrap(), "k-1");
    }
}
