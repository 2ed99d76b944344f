//! Turns arguments, the config file and the environment into the engine's settings: which model, which
//! endpoint and key, and the engine options. Precedence: flag > environment > config file > default.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use tunacode_core::{
    AgentOptions, GuidanceOptions, PruneConfig, concurrency::default_max_parallel, prompt,
};
use tunacode_llm::models::{ModelOverride, ModelRegistry};
use tunacode_llm::{ModelId, ProviderSettings, RetryPolicy, WireApi, known_provider};
use tunacode_store::{Paths, UserConfig};

/// Everything `run` needs, resolved.
pub struct Resolved {
    /// File locations.
    pub paths: Paths,
    /// The working directory (canonical).
    pub cwd: PathBuf,
    /// The model.
    pub model: ModelId,
    /// How to reach it.
    pub provider: ProviderSettings,
    /// Engine options.
    pub options: AgentOptions,
}

/// Reads the config file and resolves the run's settings.
pub fn resolve(
    model_flag: Option<&str>,
    base_url_flag: Option<&str>,
    wire_flag: Option<&str>,
    cwd_flag: Option<&Path>,
    max_iterations: Option<u32>,
    timeout: Option<f64>,
) -> anyhow::Result<Resolved> {
    let paths = Paths::from_env()?;
    let config = UserConfig::load(&paths.config_file)?;
    let cwd = resolve_cwd(cwd_flag)?;
    let model_text = model_flag
        .map(str::to_string)
        .or_else(|| config.default_model.clone())
        .with_context(|| {
            format!(
                "no model chosen: pass --model provider:model (e.g. openai:gpt-4.1) or set \
                 \"default_model\" in {}",
                paths.config_file.display()
            )
        })?;
    let model = ModelId::parse(&model_text)?;
    let provider = provider_settings(&model, base_url_flag, wire_flag, &config, &paths)?;
    let settings = &config.settings;
    let timeout = timeout.unwrap_or(settings.global_request_timeout);
    if !timeout.is_finite() || timeout < 0.0 {
        bail!("--timeout must be a positive number of seconds, got {timeout}");
    }
    let options = AgentOptions {
        model: model.to_string(),
        provider_model: model.model.clone(),
        max_iterations: max_iterations.unwrap_or(settings.max_iterations).max(1),
        request_timeout: (timeout > 0.0).then(|| Duration::from_secs_f64(timeout)),
        tool_max_retries: settings.tool_max_retries,
        max_parallel: settings.max_parallel.unwrap_or_else(default_max_parallel),
        prune: PruneConfig {
            protect_tokens: settings.prune_protect_tokens,
            minimum_tokens: settings.prune_minimum_tokens,
        },
        system_prompt: prompt::compose_system_prompt(&cwd, &settings.guide_file),
        tool_ignore: settings.tool_ignore.clone(),
        max_output_tokens: None,
        reasoning_effort: settings.reasoning_effort.clone(),
        guidance: GuidanceOptions {
            self_evaluation: settings.self_evaluation,
            no_progress_alert: settings.no_progress_alert,
            fallback_response: settings.fallback_response,
            show_thoughts: settings.show_thoughts,
        },
        pricing: registry(&paths, &config)?
            .find(&model.provider, &model.model)
            .map(|m| m.pricing),
    };
    Ok(Resolved {
        paths,
        cwd,
        model,
        provider,
        options,
    })
}

/// The model registry: bundled, refreshed cache, then the user's `models` overrides.
pub fn registry(paths: &Paths, config: &UserConfig) -> anyhow::Result<ModelRegistry> {
    let mut registry = ModelRegistry::load(&paths.models_cache);
    let mut overrides = BTreeMap::new();
    for (key, value) in &config.models {
        let parsed: ModelOverride = serde_json::from_value(value.clone()).with_context(|| {
            format!(
                "{}: models.\"{key}\" is not valid",
                paths.config_file.display()
            )
        })?;
        overrides.insert(key.clone(), parsed);
    }
    registry.apply_overrides(&overrides);
    Ok(registry)
}

fn resolve_cwd(flag: Option<&Path>) -> anyhow::Result<PathBuf> {
    let dir = match flag {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    std::fs::canonicalize(&dir)
        .with_context(|| format!("working directory {} is not usable", dir.display()))
}

/// Base URL: flag/`TUNACODE_BASE_URL` > `<PROVIDER>_BASE_URL` > `providers.<name>.base_url` > the
/// provider's default. Key: the provider's variable (`providers.<name>.key_env`, or e.g.
/// `OPENAI_API_KEY`) > `TUNACODE_API_KEY`, each from the environment first, then the config's `env`.
/// Wire API: flag/`TUNACODE_WIRE_API` > `providers.<name>.wire_api` > the provider's default.
fn provider_settings(
    model: &ModelId,
    base_url_flag: Option<&str>,
    wire_flag: Option<&str>,
    config: &UserConfig,
    paths: &Paths,
) -> anyhow::Result<ProviderSettings> {
    let prefix = model.provider.to_ascii_uppercase().replace('-', "_");
    let custom = config.providers.get(&model.provider);
    let base_url = base_url_flag
        .map(str::to_string)
        .or_else(|| config.env_var("TUNACODE_BASE_URL"))
        .or_else(|| config.env_var(&format!("{prefix}_BASE_URL")))
        .or_else(|| custom.and_then(|c| c.base_url.clone()));
    let known = known_provider(&model.provider);
    let key_var = custom
        .and_then(|c| c.key_env.clone())
        .or_else(|| known.and_then(|k| k.key_env).map(str::to_string));
    let key = key_var
        .as_deref()
        .and_then(|var| config.env_var(var))
        .or_else(|| config.env_var("TUNACODE_API_KEY"));
    if let (Some(var), None, None) = (known.and_then(|k| k.key_env), &key, &base_url) {
        bail!(
            "no API key for {}: set {var} in the environment or under \"env\" in {}",
            model.provider,
            paths.config_file.display()
        );
    }
    let wire = wire_flag
        .map(str::to_string)
        .or_else(|| custom.and_then(|c| c.wire_api.clone()))
        .map(|w| WireApi::parse(&w))
        .transpose()?;
    let mut settings = ProviderSettings::for_model_with_wire(model, base_url, key, wire)?;
    if settings.key_hint.is_none() {
        settings.key_hint = key_var;
    }
    let s = &config.settings;
    settings.idle_timeout = Duration::from_secs_f64(
        config
            .env_var("TUNACODE_STREAM_IDLE_TIMEOUT")
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(s.stream_idle_timeout)
            .max(0.05),
    );
    settings.retry = RetryPolicy {
        max_retries: s.max_retries,
        ..RetryPolicy::default()
    };
    Ok(settings)
}
