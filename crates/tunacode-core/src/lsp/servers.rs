//! Which language servers cover which files: those `settings.lsp.servers` names, else the ones the
//! field uses for each language (started only if their program is installed: a missing one is
//! skipped without a word).

use tunacode_store::LspConfig;

/// One language server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSpec {
    /// Its name (shown in notices).
    pub name: String,
    /// The program and its arguments.
    pub command: Vec<String>,
    /// The file extensions it covers.
    pub extensions: Vec<String>,
    /// The language id documents are opened with.
    pub language_id: String,
    /// Named in the config (a failure to start is said), or implied (skipped quietly when missing).
    pub configured: bool,
}

fn implied(name: &str, command: &[&str], extensions: &[&str], language_id: &str) -> ServerSpec {
    ServerSpec {
        name: name.into(),
        command: command.iter().map(|s| s.to_string()).collect(),
        extensions: extensions.iter().map(|s| s.to_string()).collect(),
        language_id: language_id.into(),
        configured: false,
    }
}

/// The servers the field uses per language, in order of preference.
pub fn implied_servers() -> Vec<ServerSpec> {
    vec![
        implied("rust-analyzer", &["rust-analyzer"], &["rs"], "rust"),
        implied(
            "pyright",
            &["pyright-langserver", "--stdio"],
            &["py"],
            "python",
        ),
        implied("pylsp", &["pylsp"], &["py"], "python"),
        implied(
            "typescript-language-server",
            &["typescript-language-server", "--stdio"],
            &["ts", "tsx", "js", "jsx", "mjs", "cjs"],
            "typescript",
        ),
        implied("gopls", &["gopls"], &["go"], "go"),
        implied(
            "clangd",
            &["clangd"],
            &["c", "h", "cc", "cpp", "hpp", "cxx"],
            "cpp",
        ),
    ]
}

/// The servers in force under `config` (none when it is off).
pub fn server_specs(config: &LspConfig) -> Vec<ServerSpec> {
    if !config.enabled {
        return Vec::new();
    }
    if config.servers.is_empty() {
        return implied_servers();
    }
    config
        .servers
        .iter()
        .map(|(name, s)| ServerSpec {
            name: name.clone(),
            command: s.command.clone(),
            extensions: s.extensions.clone(),
            language_id: s
                .language_id
                .clone()
                .or_else(|| s.extensions.first().cloned())
                .unwrap_or_default(),
            configured: true,
        })
        .collect()
}
