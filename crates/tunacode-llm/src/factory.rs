//! [`create_client`]: which client speaks a provider's wire API. The one module that knows every
//! client, so the clients and their settings know none of them.

use std::sync::Arc;

use crate::anthropic::AnthropicClient;
use crate::client::ModelClient;
use crate::error::LlmError;
use crate::gemini::GeminiClient;
use crate::openai_chat::OpenAiChatClient;
use crate::openai_responses::OpenAiResponsesClient;
use crate::provider::{ProviderSettings, WireApi};

/// The JSON body a model request goes out as on `settings`' wire (what `/context` measures).
pub fn request_body(
    settings: &ProviderSettings,
    request: &crate::client::ModelRequest,
) -> serde_json::Value {
    match settings.wire {
        WireApi::OpenAiChat => crate::openai_chat::build_body(
            request,
            crate::openai_chat::ChatDialect::for_settings(settings),
        ),
        WireApi::OpenAiResponses => crate::openai_responses::build_body(request),
        WireApi::Anthropic => crate::anthropic::build_body(request),
        WireApi::Gemini => crate::gemini::build_body(request),
    }
}

/// Builds the client for a model.
pub fn create_client(settings: &ProviderSettings) -> Result<Arc<dyn ModelClient>, LlmError> {
    match settings.wire {
        WireApi::OpenAiChat => Ok(Arc::new(OpenAiChatClient::new(settings.clone())?)),
        WireApi::OpenAiResponses => Ok(Arc::new(OpenAiResponsesClient::new(settings.clone())?)),
        WireApi::Anthropic => Ok(Arc::new(AnthropicClient::new(settings.clone())?)),
        WireApi::Gemini => Ok(Arc::new(GeminiClient::new(settings.clone())?)),
    }
}
