//! [`RuntimeSettings`]: everything a conversation runtime needs, resolved once from command-line
//! flags > environment > config file > defaults, with typed errors a front end can act on (a missing
//! key names its variable, so the UI can ask for it). Every front end resolves through here, and so
//! does first-run setup's key check, so the check uses exactly the settings the run will use.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tunacode_llm::models::{ModelOverride, ModelRegistry};
use tunacode_llm::{ModelId, ProviderSettings, RetryPolicy, WireApi, known_provider};
use tunacode_store::{Paths, UserConfig};

use crate::agent_options::AgentOptions;
use crate::concurrency::default_max_parallel;
use crate::guidance::GuidanceOptions;
use crate::history::PruneConfig;
use crate::prompt::compose_system_prompt;

/// What the user said on the command line (or a front end chose); `None` defers to the environment,
/// the config file and the defaults.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SettingsFlags {
    /// `provider:model`.
    pub model: Option<String>,
    /// The provider's endpoint.
    pub base_url: Option<String>,
    /// The wire API to speak.
    pub wire_api: Option<String>,
    /// The working directory (default: the current one).
    pub cwd: Option<PathBuf>,
    /// Model calls per request.
    pub max_iterations: Option<u32>,
    /// Whole-request time limit in seconds.
    pub timeout: Option<f64>,
    /// The sandbox mode for commands (`--sandbox`).
    pub sandbox: Option<String>,
    /// The most this run may spend, in USD (`--max-cost`).
    pub max_cost: Option<f64>,
}

pub use crate::settings_error::SettingsError;

/// One model's resolved settings: the engine options and how to reach the provider.
#[derive(Debug, Clone)]
pub struct ModelSettings {
    /// The model.
    pub model: ModelId,
    /// How to reach it (the key is redacted from `Debug`).
    pub provider: ProviderSettings,
    /// Engine options.
    pub options: AgentOptions,
    /// The model's context window in tokens, when known.
    pub context_window: Option<u64>,
}

/// Everything a runtime is built from.
#[derive(Debug, Clone)]
pub struct RuntimeSettings {
    /// File locations.
    pub paths: Paths,
    /// The canonical working directory.
    pub cwd: PathBuf,
    /// The flags it was resolved from (kept to resolve another model the same way).
    pub flags: SettingsFlags,
    /// The model in use.
    pub model: ModelSettings,
    /// Tools that never ask for approval (`settings.tool_ignore`).
    pub tool_ignore: Vec<String>,
    /// Built-in tools not offered (`settings.disabled_tools`).
    pub disabled_tools: Vec<String>,
    /// Whether `web_fetch` may reach loopback, private and link-local addresses.
    pub web_fetch_private_hosts: bool,
    /// Show reasoning and the loop's steering.
    pub show_thoughts: bool,
    /// The MCP servers to start.
    pub mcp: crate::mcp::McpSettings,
    /// How the agent's commands run (sandbox, environment).
    pub exec: tunacode_tools::ExecPolicy,
    /// The config's permission rules.
    pub permissions: crate::permissions::Permissions,
    /// The instruction files given to the model.
    pub instructions: Vec<crate::instructions::InstructionFile>,
    /// The custom slash commands.
    pub commands: Vec<crate::custom_commands::CustomCommand>,
    /// The skills the model may load.
    pub skills: Vec<crate::skills::Skill>,
    /// Instruction files, skills and commands not read because they leave their own folder or are
    /// not regular files (the runtime says each one when it opens).
    pub skipped_files: Vec<crate::project_files::Skipped>,
    /// The spend caps.
    pub budget: crate::budget_settings::BudgetCaps,
    /// `settings.fallback_models`: tried in order when the model is overloaded.
    pub fallback_models: Vec<String>,
    /// The repository's checks file, approved or waiting (the checks in force are the model's
    /// options).
    pub project_checks: Option<crate::project_file_state::ProjectFileState>,
    /// The repository's hooks file, approved or waiting.
    pub project_hooks: Option<crate::project_file_state::ProjectFileState>,
    /// The language servers whose diagnostics follow each edit.
    pub lsp: tunacode_store::LspConfig,
    /// How the workspace is recorded for rewind.
    pub rewind: tunacode_store::RewindConfig,
    /// The agent types sub-agents are started as (the repository's once approved).
    pub agent_types: crate::subagents::approval::ResolvedTypes,
    /// How sub-agents run (`settings.agents`).
    pub agents: tunacode_store::AgentsConfig,
}

impl RuntimeSettings {
    /// Reads the config file at `paths.config_file` and resolves.
    pub fn resolve(paths: &Paths, flags: &SettingsFlags) -> Result<Self, SettingsError> {
        let config = UserConfig::load(&paths.config_file)?;
        Self::resolve_with_config(paths, &config, flags)
    }

    /// Resolves against an already-read config (first-run setup checks a config before saving it).
    pub fn resolve_with_config(
        paths: &Paths,
        config: &UserConfig,
        flags: &SettingsFlags,
    ) -> Result<Self, SettingsError> {
        let cwd = resolve_cwd(flags.cwd.as_deref())?;
        let mut skipped_files = Vec::new();
        let instructions = crate::instructions::find_instructions(
            &paths.user_dir(),
            &cwd,
            &config.settings.guide_file,
            &mut skipped_files,
        );
        let skills = crate::skills::find_skills(&paths.user_dir(), &cwd, &mut skipped_files);
        let model = resolve_model(paths, config, &cwd, flags, (&instructions, &skills))?;
        let mcp = crate::mcp::resolve_mcp(paths, config, &cwd);
        let exec =
            crate::exec_settings::resolve_exec(paths, config, flags.sandbox.as_deref(), &cwd)?;
        let permissions = crate::permissions::Permissions::parse(&config.permissions)?;
        let project_checks = crate::checks::resolve_checks(paths, config, &cwd)?.project;
        let project_hooks = crate::hooks::resolve_hooks(paths, config, &cwd).project;
        let commands =
            crate::custom_commands::find_commands(&paths.user_dir(), &cwd, &mut skipped_files);
        let agent_types =
            crate::subagents::approval::resolve_types(paths, &cwd, &mut skipped_files);
        Ok(RuntimeSettings {
            paths: paths.clone(),
            cwd,
            flags: flags.clone(),
            model,
            tool_ignore: config.settings.tool_ignore.clone(),
            disabled_tools: config.settings.disabled_tools.clone(),
            web_fetch_private_hosts: config.settings.web_fetch.allow_private_hosts,
            show_thoughts: config.settings.show_thoughts,
            mcp,
            exec,
            permissions,
            instructions,
            commands,
            skills,
            skipped_files,
            budget: crate::budget_settings::resolve_budget(config, flags.max_cost)?,
            fallback_models: config.settings.fallback_models.clone(),
            project_checks,
            project_hooks,
            lsp: config.settings.lsp.clone(),
            rewind: config.settings.rewind.clone(),
            agent_types,
            agents: config.settings.agents.clone(),
        })
    }

    /// The settings for another model, resolved like the first (a model picked in a front end speaks
    /// to its provider's own endpoint, not the start-up `--base-url`).
    pub fn for_model(&self, model: &str) -> Result<ModelSettings, SettingsError> {
        let config = UserConfig::load(&self.paths.config_file)?;
        let mut flags = self.flags.clone();
        if flags.model.as_deref() != Some(model) {
            flags.base_url = None;
            flags.wire_api = None;
        }
        flags.model = Some(model.to_string());
        let context = (self.instructions.as_slice(), self.skills.as_slice());
        resolve_model(&self.paths, &config, &self.cwd, &flags, context)
    }
}

/// The model registry: bundled, the refreshed cache, then the config's `models` overrides.
pub fn load_registry(paths: &Paths, config: &UserConfig) -> Result<ModelRegistry, SettingsError> {
    let mut registry = ModelRegistry::load(&paths.models_cache);
    let mut overrides = BTreeMap::new();
    for (key, value) in &config.models {
        let parsed: ModelOverride = serde_json::from_value(value.clone()).map_err(|e| {
            SettingsError::Invalid(format!(
                "{}: models.\"{key}\" is not valid: {e}",
                paths.config_file.display()
            ))
        })?;
        overrides.insert(key.clone(), parsed);
    }
    registry.apply_overrides(&overrides);
    Ok(registry)
}

fn resolve_model(
    paths: &Paths,
    config: &UserConfig,
    cwd: &Path,
    flags: &SettingsFlags,
    (instructions, skills): (
        &[crate::instructions::InstructionFile],
        &[crate::skills::Skill],
    ),
) -> Result<ModelSettings, SettingsError> {
    let model = chosen_model(paths, config, flags)?;
    let provider = provider_settings(&model, flags, config, paths)?;
    let s = &config.settings;
    let request_timeout = request_timeout(flags.timeout.unwrap_or(s.global_request_timeout))?;
    let registry = load_registry(paths, config)?;
    let info = registry.find(&model.provider, &model.model);
    let caps = crate::budget_settings::resolve_budget(config, flags.max_cost)?;
    crate::budget_settings::check_priced(&caps, &model, info.map(|m| m.pricing), paths)?;
    let checks = crate::checks::resolve_checks(paths, config, cwd)?.config;
    let hooks = std::sync::Arc::new(crate::hooks::resolve_hooks(paths, config, cwd).set);
    let options = AgentOptions {
        checks,
        hooks,
        model: model.to_string(),
        provider_model: model.model.clone(),
        max_iterations: flags.max_iterations.unwrap_or(s.max_iterations).max(1),
        request_timeout,
        tool_max_retries: s.tool_max_retries,
        max_parallel: s.max_parallel.unwrap_or_else(default_max_parallel),
        prune: PruneConfig {
            protect_tokens: s.prune_protect_tokens,
            minimum_tokens: s.prune_minimum_tokens,
        },
        system_prompt: compose_system_prompt(cwd, instructions, skills),
        max_output_tokens: None,
        reasoning_effort: s.reasoning_effort.clone(),
        vision: info.and_then(|m| m.vision),
        guidance: GuidanceOptions {
            self_evaluation: s.self_evaluation,
            no_progress_alert: s.no_progress_alert,
            fallback_response: s.fallback_response,
            show_thoughts: s.show_thoughts,
            loop_detection: s.loop_detection,
        },
        pricing: info.map(|m| m.pricing),
        context: crate::compaction::ContextBudget {
            window: info.map(|m| m.context_window).filter(|w| *w > 0),
            max_output: info.map(|m| m.max_output).filter(|w| *w > 0),
            threshold: s.compaction_threshold.clamp(0.1, 0.99),
            tokens: crate::tokens::TokenCounter::for_model(&model.provider, &model.model),
        },
    };
    Ok(ModelSettings {
        context_window: info.map(|m| m.context_window).filter(|w| *w > 0),
        model,
        provider,
        options,
    })
}

/// The model the flags, the environment or the config's default name.
fn chosen_model(
    paths: &Paths,
    config: &UserConfig,
    flags: &SettingsFlags,
) -> Result<ModelId, SettingsError> {
    let text = flags
        .model
        .clone()
        .or_else(|| config.env_var("TUNACODE_MODEL"))
        .or_else(|| config.default_model.clone())
        .ok_or_else(|| SettingsError::NoModel {
            config_file: paths.config_file.clone(),
        })?;
    ModelId::parse(&text).map_err(|e| SettingsError::UnknownModel {
        text: text.clone(),
        reason: e.to_string(),
    })
}

/// The global request timeout in seconds as a duration (`0`: none).
fn request_timeout(timeout: f64) -> Result<Option<Duration>, SettingsError> {
    if !timeout.is_finite() || timeout < 0.0 {
        return Err(SettingsError::Invalid(format!(
            "the timeout must be a positive number of seconds, got {timeout}"
        )));
    }
    Ok((timeout > 0.0).then(|| Duration::from_secs_f64(timeout)))
}

fn resolve_cwd(flag: Option<&Path>) -> Result<PathBuf, SettingsError> {
    let dir = match flag {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().map_err(|source| SettingsError::Cwd {
            dir: PathBuf::from("."),
            source,
        })?,
    };
    std::fs::canonicalize(&dir).map_err(|source| SettingsError::Cwd { dir, source })
}

/// Base URL: flag/`TUNACODE_BASE_URL` > `<PROVIDER>_BASE_URL` > `providers.<name>.base_url` > the
/// provider's default. Key: the provider's variable (`providers.<name>.key_env`, or e.g.
/// `OPENAI_API_KEY`) > `TUNACODE_API_KEY`, each from the environment first, then the config's `env`.
/// Wire API: flag/`TUNACODE_WIRE_API` > `providers.<name>.wire_api` > the provider's default.
fn provider_settings(
    model: &ModelId,
    flags: &SettingsFlags,
    config: &UserConfig,
    paths: &Paths,
) -> Result<ProviderSettings, SettingsError> {
    let prefix = model.provider.to_ascii_uppercase().replace('-', "_");
    let custom = config.providers.get(&model.provider);
    let known = known_provider(&model.provider);
    let base_url = flags
        .base_url
        .clone()
        .or_else(|| config.env_var("TUNACODE_BASE_URL"))
        .or_else(|| config.env_var(&format!("{prefix}_BASE_URL")))
        .or_else(|| custom.and_then(|c| c.base_url.clone()));
    if let Some(url) = &base_url {
        check_base_url(url)?;
    }
    if known.is_none() && base_url.is_none() {
        return Err(SettingsError::UnknownProvider {
            provider: model.provider.clone(),
            known: tunacode_llm::known_provider_names().join(", "),
            config_file: paths.config_file.clone(),
        });
    }
    let (key, key_var) = api_key(model, config);
    if let (Some(var), None, None) = (known.and_then(|k| k.key_env), &key, &base_url) {
        return Err(SettingsError::MissingKey {
            provider: model.provider.clone(),
            var: var.to_string(),
            config_file: paths.config_file.clone(),
        });
    }
    let wire = flags
        .wire_api
        .clone()
        .or_else(|| config.env_var("TUNACODE_WIRE_API"))
        .or_else(|| custom.and_then(|c| c.wire_api.clone()))
        .map(|w| WireApi::parse(&w))
        .transpose()
        .map_err(|e| SettingsError::Invalid(e.to_string()))?;
    let mut settings = ProviderSettings::for_model_with_wire(model, base_url, key, wire)
        .map_err(|e| SettingsError::Invalid(e.to_string()))?;
    if settings.key_hint.is_none() {
        settings.key_hint = key_var;
    }
    settings.config_file = Some(paths.config_file.clone());
    tune(&mut settings, config);
    Ok(settings)
}

/// The key and the variable it is read from: the provider's variable (`providers.<name>.key_env`,
/// or e.g. `OPENAI_API_KEY`), else `TUNACODE_API_KEY`; each from the environment, then the config's
/// `env`.
fn api_key(model: &ModelId, config: &UserConfig) -> (Option<String>, Option<String>) {
    let key_var = config
        .providers
        .get(&model.provider)
        .and_then(|c| c.key_env.clone())
        .or_else(|| {
            known_provider(&model.provider)
                .and_then(|k| k.key_env)
                .map(str::to_string)
        });
    let key = key_var
        .as_deref()
        .and_then(|var| config.env_var(var))
        .or_else(|| config.env_var("TUNACODE_API_KEY"));
    (key, key_var)
}

/// The stream idle timeout and the retry policy from the config.
fn tune(settings: &mut ProviderSettings, config: &UserConfig) {
    settings.idle_timeout = Duration::from_secs_f64(
        config
            .env_var("TUNACODE_STREAM_IDLE_TIMEOUT")
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(config.settings.stream_idle_timeout)
            .max(0.05),
    );
    settings.retry = RetryPolicy {
        max_retries: config.settings.max_retries,
        ..RetryPolicy::default()
    };
}

/// An http(s) URL with a host.
fn check_base_url(url: &str) -> Result<(), SettingsError> {
    let bad = |reason: &str| SettingsError::BadBaseUrl {
        url: url.to_string(),
        reason: reason.to_string(),
    };
    let parsed = url::Url::parse(url.trim()).map_err(|e| bad(&e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(bad("it must start with http:// or https://"));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(bad("it has no host"));
    }
    Ok(())
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
