//! The user's config file (`~/.config/tunacode.json`, the original's format): `default_model`, `env`
//! (provider keys and URLs), `settings`. Read only: TunaCode never rewrites a file it could not read.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::StoreError;

/// Engine settings (`settings` in the config file). Unknown keys are kept, not rejected.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Model calls per request before the run stops.
    pub max_iterations: u32,
    /// Whole-request time limit in seconds (0: none).
    pub global_request_timeout: f64,
    /// Longest silence inside a model stream, in seconds.
    pub stream_idle_timeout: f64,
    /// Retries of a failed model call.
    pub max_retries: u32,
    /// Retries of a tool that failed for a passing reason.
    pub tool_max_retries: u32,
    /// Parallel read-only tool calls (`None`: `TUNACODE_MAX_PARALLEL`, else the CPU count).
    pub max_parallel: Option<usize>,
    /// The project context file read from the working directory.
    pub guide_file: String,
    /// Most recent tool output (estimated tokens) kept whole when pruning history.
    pub prune_protect_tokens: u64,
    /// Pruning happens only when it would free at least this many tokens.
    pub prune_minimum_tokens: u64,
    /// Tools that never ask for approval.
    pub tool_ignore: Vec<String>,
    /// Built-in tools not offered to the model at all (e.g. `apply_patch` or `update_file`).
    pub disabled_tools: Vec<String>,
    /// Reasoning effort for reasoning models (`low`, `medium`, `high`); unset: the provider's default.
    pub reasoning_effort: Option<String>,
    /// From the third iteration on, ask the model whether the task is complete.
    pub self_evaluation: bool,
    /// After three iterations without a tool call, alert the model.
    pub no_progress_alert: bool,
    /// At the iteration limit with no answer shown, show a summary built from the tool history.
    pub fallback_response: bool,
    /// Show the loop's own steering and the model's reasoning.
    pub show_thoughts: bool,
    /// The interactive UI's color theme (`dark`, `light`, `plain`), as `/theme` last saved it.
    pub theme: Option<String>,
    /// Compact the history when the next request would fill this share of the model's window.
    pub compaction_threshold: f64,
    /// The sandbox `bash` and `run_command` run in.
    pub sandbox: SandboxConfig,
    /// Which variables of the environment commands see, besides the default filter of secrets.
    pub shell_env: ShellEnvConfig,
    /// The `web_fetch` tool.
    pub web_fetch: WebFetchConfig,
    /// Spend caps per request, session and day.
    pub budget: crate::budget_config::BudgetConfig,
    /// Models (`provider:model`) a call falls back to, in order, when its own model is overloaded.
    pub fallback_models: Vec<String>,
    /// How the agent catches a model repeating itself.
    pub loop_detection: crate::loop_config::LoopDetectionConfig,
    /// The user's checks (a project's own come from `.tunacode/checks.json` once approved).
    pub checks: crate::checks_config::ChecksConfig,
    /// The language servers whose diagnostics follow each edit.
    pub lsp: crate::lsp_config::LspConfig,
    /// How the workspace is recorded for rewind.
    pub rewind: crate::rewind_config::RewindConfig,
    /// How sub-agents run.
    pub agents: crate::agents_config::AgentsConfig,
    /// Keys this version does not use, kept as read.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `settings.sandbox`: a mode name, or `{"mode", "writable_roots", "network"}`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(from = "SandboxConfigForm")]
pub struct SandboxConfig {
    /// `workspace-write` (default), `read-only` or `off`.
    pub mode: Option<String>,
    /// Directories commands may write in besides the working directory and the temp dir.
    pub writable_roots: Vec<std::path::PathBuf>,
    /// Whether commands may use the network.
    pub network: bool,
    /// Hosts commands may reach without the network, through TunaCode's proxy (`*.crates.io`).
    pub allowed_hosts: Vec<String>,
    /// Whether sandboxed commands are also kept from the workspace's `.env*` files (the file tools
    /// never read them).
    pub hide_env_files: bool,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum SandboxConfigForm {
    Mode(String),
    Full {
        #[serde(default)]
        mode: Option<String>,
        #[serde(default)]
        writable_roots: Vec<std::path::PathBuf>,
        #[serde(default)]
        network: bool,
        #[serde(default)]
        allowed_hosts: Vec<String>,
        #[serde(default)]
        hide_env_files: bool,
    },
}

impl From<SandboxConfigForm> for SandboxConfig {
    fn from(form: SandboxConfigForm) -> Self {
        match form {
            SandboxConfigForm::Mode(mode) => SandboxConfig {
                mode: Some(mode),
                ..SandboxConfig::default()
            },
            SandboxConfigForm::Full {
                mode,
                writable_roots,
                network,
                allowed_hosts,
                hide_env_files,
            } => SandboxConfig {
                mode,
                writable_roots,
                network,
                allowed_hosts,
                hide_env_files,
            },
        }
    }
}

/// `settings.web_fetch`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(default)]
pub struct WebFetchConfig {
    /// Whether loopback, private and link-local addresses may be fetched from.
    pub allow_private_hosts: bool,
}

/// `permissions`: rule patterns by kind.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(default)]
pub struct PermissionsConfig {
    /// Calls that run without asking.
    pub allow: Vec<String>,
    /// Calls that are always asked about.
    pub ask: Vec<String>,
    /// Calls that are refused.
    pub deny: Vec<String>,
    /// Paths (`~` for the home directory) whose contents no tool reads and commands cannot read,
    /// besides the built-in list (`~/.ssh`, `~/.aws`, …, the agent's own config and data).
    pub deny_read: Vec<String>,
}

/// `settings.shell_env`: variable name patterns (`*` matches any run of characters) commands see
/// although they look like secrets (`include`), or do not see although they do not (`exclude`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(default)]
pub struct ShellEnvConfig {
    /// Always passed.
    pub include: Vec<String>,
    /// Never passed.
    pub exclude: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            max_iterations: 40,
            global_request_timeout: 0.0,
            stream_idle_timeout: 120.0,
            max_retries: 4,
            tool_max_retries: 3,
            max_parallel: None,
            guide_file: "AGENTS.md".into(),
            prune_protect_tokens: 40_000,
            prune_minimum_tokens: 20_000,
            tool_ignore: Vec::new(),
            disabled_tools: Vec::new(),
            reasoning_effort: None,
            self_evaluation: true,
            no_progress_alert: true,
            fallback_response: true,
            show_thoughts: false,
            theme: None,
            sandbox: SandboxConfig::default(),
            shell_env: ShellEnvConfig::default(),
            web_fetch: WebFetchConfig::default(),
            budget: crate::budget_config::BudgetConfig::default(),
            fallback_models: Vec::new(),
            loop_detection: crate::loop_config::LoopDetectionConfig::default(),
            checks: crate::checks_config::ChecksConfig::default(),
            lsp: crate::lsp_config::LspConfig::default(),
            rewind: crate::rewind_config::RewindConfig::default(),
            agents: crate::agents_config::AgentsConfig::default(),
            compaction_threshold: 0.85,
            other: Map::new(),
        }
    }
}

/// A provider declared in the config (`providers.<name>`), used as `<name>:<model>`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default)]
pub struct CustomProvider {
    /// Its base URL, e.g. `http://gpu-box:8000/v1`.
    pub base_url: Option<String>,
    /// Wire API: `openai-chat` (default), `openai-responses`, `anthropic` or `gemini`.
    pub wire_api: Option<String>,
    /// The variable holding its key (looked up in the environment, then in `env`).
    pub key_env: Option<String>,
}

/// The whole config file.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default)]
pub struct UserConfig {
    /// The model used when none is given (`provider:model`).
    pub default_model: Option<String>,
    /// Environment for providers (API keys, base URLs); the real environment wins.
    pub env: BTreeMap<String, String>,
    /// Engine settings.
    pub settings: Settings,
    /// Providers declared by the user (or overrides of known ones).
    pub providers: BTreeMap<String, CustomProvider>,
    /// Model figures (`provider:model` → context window, output limit, prices) overriding the registry.
    pub models: BTreeMap<String, Value>,
    /// MCP servers by name (`{"command": …}` or `{"url": …}` each), as Claude Code and Cursor write
    /// them; each entry is checked when the servers start, so one bad entry does not stop the rest.
    #[serde(rename = "mcpServers")]
    pub mcp_servers: Map<String, Value>,
    /// Permission rules (`allow`, `ask`, `deny` lists of patterns such as `bash(cargo test:*)`).
    pub permissions: PermissionsConfig,
    /// Lifecycle hooks, as Claude Code's settings write them.
    pub hooks: crate::hooks_config::HooksConfig,
    /// Keys this version does not use, kept as read.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl UserConfig {
    /// Reads the config file. A missing file is the default config; a malformed one is an error that
    /// names the file, the line and the column.
    pub fn load(path: &Path) -> Result<Self, StoreError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => return Err(StoreError::io(path, e)),
        };
        Self::parse(path, &text)
    }

    /// Reads a config file's text (`path` names it in errors). Blank text is the default config.
    pub fn parse(path: &Path, text: &str) -> Result<Self, StoreError> {
        if text.trim().is_empty() {
            return Ok(Self::default());
        }
        serde_json::from_str(text).map_err(|e| StoreError::malformed(path, &e))
    }

    /// A variable from the real environment, else from the config's `env`; empty values count as unset.
    pub fn env_var(&self, name: &str) -> Option<String> {
        std::env::var(name)
            .ok()
            .filter(|v| !v.trim().is_empty())
            .or_else(|| self.env.get(name).cloned().filter(|v| !v.trim().is_empty()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn write(text: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f
    }

    #[test]
    fn reads_the_original_format_and_keeps_unknown_keys() {
        let f = write(
            r#"{"default_model": "openai:gpt-4.1", "env": {"TUNACODE_TEST_CFG_KEY": "sk-x"},
            "settings": {"max_iterations": 7, "fallback_response": true}, "mcpServers": {},
            "providers": {"gpu": {"base_url": "http://gpu:8000/v1", "key_env": "GPU_KEY"}}}"#,
        );
        let cfg = UserConfig::load(f.path()).unwrap();
        assert_eq!(cfg.default_model.as_deref(), Some("openai:gpt-4.1"));
        assert_eq!(cfg.settings.max_iterations, 7);
        assert_eq!(cfg.settings.tool_max_retries, 3);
        assert!(cfg.settings.fallback_response);
        assert!(cfg.settings.self_evaluation);
        assert!(cfg.mcp_servers.is_empty());
        assert!(cfg.other.is_empty(), "{:?}", cfg.other);
        assert_eq!(
            cfg.providers["gpu"].base_url.as_deref(),
            Some("http://gpu:8000/v1")
        );
        assert_eq!(cfg.providers["gpu"].wire_api, None);
        assert_eq!(
            cfg.env_var("TUNACODE_TEST_CFG_KEY").as_deref(),
            Some("sk-x")
        );
    }

    #[test]
    fn malformed_file_names_file_line_and_column_and_is_left_alone() {
        let text =
            "{\n  \"default_model\": \"x\",\n  \"settings\": {\"max_iterations\": \"ten\"}\n}";
        let f = write(text);
        let err = UserConfig::load(f.path()).unwrap_err();
        match &err {
            StoreError::Malformed {
                line,
                column,
                message,
                ..
            } => {
                assert_eq!(*line, 3);
                assert!(*column > 20, "{column}");
                assert!(message.contains("invalid type"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert!(err.to_string().starts_with(&f.path().display().to_string()));
        assert_eq!(std::fs::read_to_string(f.path()).unwrap(), text);
        let f = write("{\"default_model\": ");
        assert!(matches!(
            UserConfig::load(f.path()),
            Err(StoreError::Malformed { line: 1, .. })
        ));
    }

    #[test]
    fn missing_or_empty_file_is_the_default() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            UserConfig::load(&dir.path().join("none.json")).unwrap(),
            UserConfig::default()
        );
        let f = write("  \n");
        assert_eq!(UserConfig::load(f.path()).unwrap(), UserConfig::default());
    }
}
