//! The Anthropic Messages (`POST {base}/messages`) client.

use tokio_util::sync::CancellationToken;

use crate::client::{ModelClient, ModelRequest, ModelStream};
use crate::error::LlmError;
use crate::provider::ProviderSettings;

/// A client for Anthropic Messages (`POST {base}/messages`).
#[derive(Debug, Clone)]
pub struct AnthropicClient {
    settings: ProviderSettings,
}

impl AnthropicClient {
    /// A client with the given settings.
    pub fn new(settings: ProviderSettings) -> Result<Self, LlmError> {
        Ok(AnthropicClient { settings })
    }
}

impl ModelClient for AnthropicClient {
    fn stream(&self, _request: ModelRequest, _cancel: CancellationToken) -> ModelStream {
        let message = format!(
            "anthropic client for {} is being built",
            self.settings.base_url
        );
        Box::pin(futures::stream::once(async move {
            Err(LlmError::Config { message })
        }))
    }
}
