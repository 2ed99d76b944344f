//! Refreshing the registry from the public models.dev catalogue (`api.json`: providers, each with
//! `models` carrying `limit.context`, `limit.output` and `cost` per million tokens).

use std::time::Duration;

use serde_json::Value;

use super::registry::{ModelInfo, ModelRegistry, Pricing, RegistrySource};
use crate::error::{LlmError, describe_reqwest_error};
use crate::http::shared_http_client;

/// The catalogue's address (overridable with `TUNACODE_MODELS_URL`).
pub const MODELS_DEV_URL: &str = "https://models.dev/api.json";

/// Provider ids of models.dev that match ours (`google` is also ours; others keep their id).
fn our_provider(id: &str) -> &str {
    match id {
        "lmstudio" | "lm-studio" => "lmstudio",
        other => other,
    }
}

/// Reads the catalogue.
pub fn parse_models_dev(catalogue: &Value) -> Result<Vec<ModelInfo>, LlmError> {
    let providers = catalogue
        .as_object()
        .ok_or_else(|| LlmError::InvalidResponse {
            message: "the models catalogue is not a JSON object of providers".into(),
        })?;
    let mut models = Vec::new();
    for (provider_id, provider) in providers {
        let Some(list) = provider.get("models").and_then(Value::as_object) else {
            continue;
        };
        for (model_id, m) in list {
            let n = |p: &str| m.pointer(p).and_then(Value::as_u64).unwrap_or(0);
            let f = |p: &str| m.pointer(p).and_then(Value::as_f64).unwrap_or(0.0);
            models.push(ModelInfo {
                provider: our_provider(provider_id).to_string(),
                id: model_id.clone(),
                context_window: n("/limit/context"),
                max_output: n("/limit/output"),
                pricing: Pricing {
                    input: f("/cost/input"),
                    output: f("/cost/output"),
                    cache_read: f("/cost/cache_read"),
                    cache_write: f("/cost/cache_write"),
                },
                reasoning: m.get("reasoning").and_then(Value::as_bool).unwrap_or(false),
                vision: m
                    .pointer("/modalities/input")
                    .and_then(Value::as_array)
                    .map(|inputs| inputs.iter().any(|i| i == "image")),
            });
        }
    }
    if models.is_empty() {
        return Err(LlmError::InvalidResponse {
            message: "the models catalogue lists no models".into(),
        });
    }
    Ok(models)
}

/// Downloads the catalogue from `url` and lays it over the bundled table. Returns the merged registry
/// and how many models the catalogue listed. On any failure the caller keeps its current table.
pub async fn refresh(url: &str) -> Result<(ModelRegistry, usize), LlmError> {
    let client = shared_http_client()?;
    let response = client
        .get(url)
        .timeout(Duration::from_secs(20))
        .send()
        .await
        .map_err(|e| LlmError::Network {
            message: describe_reqwest_error(&e),
        })?;
    let status = response.status().as_u16();
    if !response.status().is_success() {
        return Err(LlmError::Server {
            status,
            message: format!("the models catalogue answered HTTP {status}"),
        });
    }
    let catalogue: Value = response
        .json()
        .await
        .map_err(|e| LlmError::InvalidResponse {
            message: format!(
                "the models catalogue is not JSON: {}",
                describe_reqwest_error(&e)
            ),
        })?;
    let fresh = parse_models_dev(&catalogue)?;
    let listed = fresh.len();
    let mut registry = ModelRegistry::bundled();
    let mut merged: Vec<ModelInfo> = registry.list(None).into_iter().cloned().collect();
    merged.retain(|m| !fresh.iter().any(|f| f.key() == m.key()));
    merged.extend(fresh);
    registry = ModelRegistry::from_models(merged, RegistrySource::Refreshed);
    Ok((registry, listed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_limits_costs_and_reasoning() {
        let catalogue = json!({
            "anthropic": {"id": "anthropic", "models": {"claude-x": {"id": "claude-x", "reasoning": true,
                "limit": {"context": 200000, "output": 64000},
                "cost": {"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75}}}},
            "empty": {"id": "empty"}
        });
        let models = parse_models_dev(&catalogue).unwrap();
        assert_eq!(
            models,
            vec![ModelInfo {
                provider: "anthropic".into(),
                id: "claude-x".into(),
                context_window: 200000,
                max_output: 64000,
                pricing: Pricing {
                    input: 3.0,
                    output: 15.0,
                    cache_read: 0.3,
                    cache_write: 3.75
                },
                reasoning: true,
                vision: None,
            }]
        );
        assert!(parse_models_dev(&json!({})).is_err());
        assert!(parse_models_dev(&json!([1])).is_err());
    }
}
