//! The OpenAI Responses (`POST {base}/responses`) client.

use tokio_util::sync::CancellationToken;

use crate::client::{ModelClient, ModelRequest, ModelStream};
use crate::error::LlmError;
use crate::provider::ProviderSettings;

/// A client for OpenAI Responses (`POST {base}/responses`).
#[derive(Debug, Clone)]
pub struct OpenAiResponsesClient {
    settings: ProviderSettings,
}

impl OpenAiResponsesClient {
    /// A client with the given settings.
    pub fn new(settings: ProviderSettings) -> Result<Self, LlmError> {
        Ok(OpenAiResponsesClient { settings })
    }
}

impl ModelClient for OpenAiResponsesClient {
    fn stream(&self, _request: ModelRequest, _cancel: CancellationToken) -> ModelStream {
        let message = format!(
            "openai_responses client for {} is being built",
            self.settings.base_url
        );
        Box::pin(futures::stream::once(async move {
            Err(LlmError::Config { message })
        }))
    }
}
