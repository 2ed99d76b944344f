//! The models an OpenAI-compatible server serves (`GET {base}/models`), for `/model` to list beside
//! the catalogue: a local server (llama.cpp, Ollama, vLLM, LM Studio) names its own.

use std::time::Duration;

use serde_json::Value;

use crate::error::LlmError;
use crate::http::http_client_for;
use crate::provider::{ProviderSettings, WireApi};

/// How long the listing may take (a server that does not answer is left out of `/model`).
const LIST_TIMEOUT: Duration = Duration::from_secs(5);

/// The ids of the models `settings`' server lists; empty for a wire with no such listing.
pub async fn server_models(settings: &ProviderSettings) -> Result<Vec<String>, LlmError> {
    if !matches!(
        settings.wire,
        WireApi::OpenAiChat | WireApi::OpenAiResponses
    ) {
        return Ok(Vec::new());
    }
    let url = format!("{}/models", settings.base_url.trim_end_matches('/'));
    let mut request = http_client_for(&url)?.get(&url).timeout(LIST_TIMEOUT);
    if let Some(key) = &settings.api_key {
        request = request.bearer_auth(key);
    }
    let response = request
        .send()
        .await
        .map_err(|e| LlmError::InvalidResponse {
            message: format!("listing the server's models at {url}: {e}"),
        })?;
    let status = response.status();
    let body: Value = response
        .json()
        .await
        .map_err(|e| LlmError::InvalidResponse {
            message: format!("the server's model list at {url} is not JSON: {e}"),
        })?;
    if !status.is_success() {
        return Err(LlmError::InvalidResponse {
            message: format!("listing the server's models at {url}: HTTP {status}"),
        });
    }
    let mut ids: Vec<String> = body["data"]
        .as_array()
        .map(|models| {
            models
                .iter()
                .filter_map(|m| m["id"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    ids.dedup();
    Ok(ids)
}
