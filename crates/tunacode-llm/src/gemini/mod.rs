//! The Google Gemini (`POST {base}/models/{model}:streamGenerateContent?alt=sse`) client.

use tokio_util::sync::CancellationToken;

use crate::client::{ModelClient, ModelRequest, ModelStream};
use crate::error::LlmError;
use crate::provider::ProviderSettings;

/// A client for Google Gemini (`POST {base}/models/{model}:streamGenerateContent?alt=sse`).
#[derive(Debug, Clone)]
pub struct GeminiClient {
    settings: ProviderSettings,
}

impl GeminiClient {
    /// A client with the given settings.
    pub fn new(settings: ProviderSettings) -> Result<Self, LlmError> {
        Ok(GeminiClient { settings })
    }
}

impl ModelClient for GeminiClient {
    fn stream(&self, _request: ModelRequest, _cancel: CancellationToken) -> ModelStream {
        let message = format!(
            "gemini client for {} is being built",
            self.settings.base_url
        );
        Box::pin(futures::stream::once(async move {
            Err(LlmError::Config { message })
        }))
    }
}
