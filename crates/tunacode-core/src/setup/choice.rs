//! How a setup choice reaches its model.

use tunacode_llm::{LlmError, ModelId, ProviderSettings, WireApi};
use tunacode_protocol::runtime::SetupChoice;

/// How to reach the chosen model (default retry policy and idle timeout; the key variable as the
/// hint in auth errors).
pub fn provider_settings(choice: &SetupChoice) -> Result<ProviderSettings, LlmError> {
    let id = ModelId::parse(&choice.model_id())?;
    let wire = choice.wire_api.as_deref().map(WireApi::parse).transpose()?;
    let mut settings = ProviderSettings::for_model_with_wire(
        &id,
        choice.base_url.clone(),
        choice.api_key.clone(),
        wire,
    )?;
    if settings.key_hint.is_none() {
        settings.key_hint = choice.key_env.clone();
    }
    Ok(settings)
}
