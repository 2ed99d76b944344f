//! What a setup choice writes to the config and how it reaches its model.

use pretty_assertions::assert_eq;
use serde_json::json;
use tunacode_llm::WireApi;

use super::*;

fn choice(
    provider: &str,
    model: &str,
    base_url: Option<&str>,
    key: Option<(&str, &str)>,
) -> SetupChoice {
    SetupChoice {
        provider: provider.into(),
        model: model.into(),
        base_url: base_url.map(str::to_string),
        wire_api: base_url.map(|_| "openai-chat".to_string()),
        key_env: key.map(|(var, _)| var.to_string()),
        api_key: key.map(|(_, k)| k.to_string()),
    }
}

#[test]
fn a_compatible_server_without_a_key_gets_a_provider_entry_and_no_env() {
    let c = choice("gpu", "qwen3:8b", Some("http://gpu-box:8000/v1"), None);
    let update = setup_update(&c);
    assert_eq!(update.default_model.as_deref(), Some("gpu:qwen3:8b"));
    assert_eq!(update.env, Vec::<(String, String)>::new());
    assert_eq!(
        update.provider,
        Some((
            "gpu".to_string(),
            json!({"base_url": "http://gpu-box:8000/v1", "wire_api": "openai-chat"})
        ))
    );
    let settings = provider_settings(&c).unwrap();
    assert_eq!(settings.base_url, "http://gpu-box:8000/v1");
    assert_eq!(
        (settings.wire, settings.api_key),
        (WireApi::OpenAiChat, None)
    );
}

#[test]
fn a_compatible_servers_key_is_saved_under_its_variable_and_named_in_the_entry() {
    let c = choice(
        "my-box",
        "llama",
        Some("http://localhost:11434/v1"),
        Some(("MY_BOX_API_KEY", "sk-local-123")),
    );
    let update = setup_update(&c);
    assert_eq!(
        update.env,
        [("MY_BOX_API_KEY".to_string(), "sk-local-123".to_string())]
    );
    assert_eq!(
        update.provider.unwrap().1,
        json!({"base_url": "http://localhost:11434/v1", "wire_api": "openai-chat",
               "key_env": "MY_BOX_API_KEY"})
    );
    assert_eq!(update.default_model.as_deref(), Some("my-box:llama"));
    assert!(!format!("{c:?}").contains("sk-local"));
}

#[test]
fn a_known_provider_keeps_its_endpoint_and_wire_and_saves_only_the_key() {
    let c = choice(
        "openai",
        "gpt-4.1-mini",
        None,
        Some(("OPENAI_API_KEY", "sk-openai")),
    );
    let settings = provider_settings(&c).unwrap();
    assert_eq!(settings.wire, WireApi::OpenAiResponses);
    assert_eq!(settings.base_url, "https://api.openai.com/v1");
    let update = setup_update(&c);
    assert_eq!(update.provider, None);
    assert_eq!(
        update.env,
        [("OPENAI_API_KEY".to_string(), "sk-openai".to_string())]
    );
}

#[test]
fn the_catalogue_lists_the_registrys_models_and_the_known_providers() {
    use tunacode_llm::models::{ModelInfo, Pricing, RegistrySource};
    let registry = ModelRegistry::from_models(
        vec![ModelInfo {
            provider: "openai".into(),
            id: "gpt-5".into(),
            context_window: 400_000,
            max_output: 128_000,
            pricing: Pricing {
                input: 1.25,
                output: 10.0,
                ..Pricing::default()
            },
            reasoning: true,
            vision: None,
        }],
        RegistrySource::Bundled,
    );
    let catalogue = catalogue_of(&registry);
    assert_eq!(
        catalogue.models,
        [CatalogueModel {
            provider: "openai".into(),
            id: "gpt-5".into(),
            context_window: 400_000,
            input_price: 1.25,
            output_price: 10.0,
        }]
    );
    let openai = catalogue.provider("openai").unwrap();
    assert_eq!(openai.key_env.as_deref(), Some("OPENAI_API_KEY"));
    assert_eq!(openai.base_url, "https://api.openai.com/v1");
}
