//! Which MCP servers a session starts: the user's `mcpServers`, then the project's `.mcp.json` once
//! the user approved it (until then its servers are listed as waiting, never started), with `${VAR}`
//! read from the environment and then the config's `env`. A user server wins over a project server of
//! the same name, so a repository cannot replace a server the user set up.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tunacode_store::{Paths, UserConfig, is_project_mcp_approved, read_mcp_file};

pub use tunacode_mcp::{
    ConfigSource, McpManager, ServerEntry, ServerState, ServerStatus, parse_servers,
};

/// The prefix of every MCP tool's name (`mcp__<server>__<tool>`).
pub const TOOL_PREFIX: &str = tunacode_mcp::PREFIX;

/// A server's state in words: `ready (2025-11-25, 6 tools)`, `failed: why`, `starting`, ….
pub fn describe_state(status: &ServerStatus) -> String {
    status.describe_state()
}

/// The environment a stdio server starts from.
type ServerEnv = Arc<Vec<(std::ffi::OsString, std::ffi::OsString)>>;

/// The project's MCP file, by name.
pub const PROJECT_MCP_FILE: &str = ".mcp.json";

/// The servers a session may start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpSettings {
    /// Entries to start (the user's, the approved project's).
    pub servers: Vec<ServerEntry>,
    /// The project's `.mcp.json`, when it names servers.
    pub project: Option<ProjectMcp>,
}

/// A project's `.mcp.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectMcp {
    /// The file.
    pub file: PathBuf,
    /// The servers it names.
    pub names: Vec<String>,
    /// Whether the user approved this content of it.
    pub approved: bool,
    /// Its content as read (what an approval covers).
    pub text: String,
    /// Its servers (started only once approved).
    pub servers: Vec<ServerEntry>,
}

/// Resolves the MCP servers of a session in `cwd`. A malformed project file is reported as a failed
/// entry named after the file; the user's servers still start.
pub fn resolve_mcp(paths: &Paths, config: &UserConfig, cwd: &Path) -> McpSettings {
    let lookup = |var: &str| config.env_var(var);
    let mut servers = parse_servers(&config.mcp_servers, ConfigSource::User, &lookup);
    let file = cwd.join(PROJECT_MCP_FILE);
    let project = match read_mcp_file(&file) {
        Ok(None) => None,
        Ok(Some((_, map))) if map.is_empty() => None,
        Ok(Some((text, map))) => {
            let mut entries = parse_servers(&map, ConfigSource::Project, &lookup);
            entries.retain(|e| !servers.iter().any(|u| u.name == e.name));
            let approved = is_project_mcp_approved(&paths.mcp_approvals, &file, &text);
            Some(ProjectMcp {
                file,
                names: entries.iter().map(|e| e.name.clone()).collect(),
                approved,
                text,
                servers: entries,
            })
        }
        Err(e) => {
            servers.push(ServerEntry {
                name: PROJECT_MCP_FILE.to_string(),
                disabled: false,
                config: Err(e.to_string()),
            });
            None
        }
    };
    if let Some(project) = project.as_ref().filter(|p| p.approved) {
        servers.extend(project.servers.iter().cloned());
    }
    McpSettings { servers, project }
}

/// The settings `resolve_mcp` gives for `cwd` with the config file read now (off the async threads).
async fn settings_now(
    paths: &Paths,
    cwd: &Path,
) -> Result<McpSettings, tunacode_store::StoreError> {
    Ok(settings_and_env(paths, cwd).await?.0)
}

/// The MCP settings as they read now, and the environment servers start from (the one commands get;
/// `None` when the config's `settings.shell_env` cannot be read, which the runtime reports itself).
async fn settings_and_env(
    paths: &Paths,
    cwd: &Path,
) -> Result<(McpSettings, Option<ServerEnv>), tunacode_store::StoreError> {
    let (paths, dir) = (paths.clone(), cwd.to_path_buf());
    tokio::task::spawn_blocking(move || {
        let config = UserConfig::load(&paths.config_file)?;
        let env = crate::exec_settings::child_env(&config, std::env::vars_os())
            .ok()
            .map(Arc::new);
        Ok::<_, tunacode_store::StoreError>((resolve_mcp(&paths, &config, &dir), env))
    })
    .await
    .map_err(|e| tunacode_store::StoreError::Io {
        path: cwd.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })?
}

/// The project's `.mcp.json` as it reads now, when it names servers.
pub async fn project_mcp(
    paths: &Paths,
    cwd: &Path,
) -> Result<Option<ProjectMcp>, tunacode_store::StoreError> {
    Ok(settings_now(paths, cwd).await?.project)
}

/// Every server's status after trying to start them all (each within its own start-up time), then
/// stops them: what `tunacode mcp list` shows. Also the project's file, approved or not.
pub async fn probe(
    paths: &Paths,
    cwd: &Path,
) -> Result<(Vec<ServerStatus>, Option<ProjectMcp>), tunacode_store::StoreError> {
    let (settings, env) = settings_and_env(paths, cwd).await?;
    let changed = Arc::new(tokio::sync::Notify::new());
    let wake = changed.clone();
    let manager = McpManager::with_env(cwd, Arc::new(move |_| wake.notify_one()), env);
    let longest = settings
        .servers
        .iter()
        .filter_map(|s| s.config.as_ref().ok().map(|c| c.startup_timeout))
        .max()
        .unwrap_or_default();
    manager.start(settings.servers);
    let settled = async {
        while manager
            .statuses()
            .iter()
            .any(|s| s.state == ServerState::Starting)
        {
            changed.notified().await;
        }
    };
    // Each server fails itself at its own timeout; the margin covers listing its tools.
    let _ = tokio::time::timeout(longest * 2 + Duration::from_secs(1), settled).await;
    let statuses = manager.statuses();
    manager.shutdown().await;
    Ok((statuses, settings.project))
}

/// Servers an editor handed over, as entries the manager starts like configured ones (an
/// unsupported transport becomes an entry that fails with its reason).
pub fn client_entries(servers: Vec<tunacode_protocol::McpServerSpec>) -> Vec<ServerEntry> {
    servers.into_iter().map(client_entry).collect()
}

fn client_entry(spec: tunacode_protocol::McpServerSpec) -> ServerEntry {
    use tunacode_mcp::{
        DEFAULT_STARTUP_TIMEOUT, DEFAULT_TOOL_TIMEOUT, ServerConfig, TransportConfig,
    };
    use tunacode_protocol::McpTransport;
    let transport = match spec.transport {
        McpTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => Ok(TransportConfig::Stdio {
            command,
            args,
            env,
            cwd,
        }),
        McpTransport::Http { url, headers } => Ok(TransportConfig::Http { url, headers }),
        McpTransport::Unsupported { reason } => Err(reason),
    };
    let config = transport.map(|transport| ServerConfig {
        name: spec.name.clone(),
        transport,
        startup_timeout: DEFAULT_STARTUP_TIMEOUT,
        tool_timeout: DEFAULT_TOOL_TIMEOUT,
        trust_read_only_hints: false,
        always_allow: Vec::new(),
        source: ConfigSource::Client,
    });
    ServerEntry {
        name: spec.name,
        disabled: false,
        config,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(dir: &Path) -> Paths {
        Paths {
            config_file: dir.join("tunacode.json"),
            sessions_dir: dir.join("sessions"),
            log_dir: dir.join("logs"),
            models_cache: dir.join("models.json"),
            mcp_approvals: dir.join("mcp_approvals.json"),
        }
    }

    #[test]
    fn project_servers_start_only_once_approved_and_never_replace_the_users() {
        let dir = tempfile::tempdir().expect("dir");
        let paths = paths(dir.path());
        let config: UserConfig =
            serde_json::from_str(r#"{"mcpServers": {"shared": {"command": "user-one"}}}"#)
                .expect("config");
        let text = r#"{"mcpServers": {"shared": {"command": "repo-one"}, "db": {"command": "x"}}}"#;
        std::fs::write(dir.path().join(PROJECT_MCP_FILE), text).expect("write");

        let before = resolve_mcp(&paths, &config, dir.path());
        let names: Vec<_> = before.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["shared"]);
        let project = before.project.expect("the project file is seen");
        assert!(!project.approved);
        assert_eq!(project.names, ["db"]);

        tunacode_store::approve_project_mcp(&paths.mcp_approvals, &project.file, &project.text)
            .expect("approved");
        let after = resolve_mcp(&paths, &config, dir.path());
        let names: Vec<_> = after.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["shared", "db"]);
        let shared = after.servers[0].config.as_ref().expect("usable");
        assert!(format!("{:?}", shared.transport).contains("user-one"));
    }

    #[test]
    fn a_malformed_project_file_is_a_failed_entry() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(dir.path().join(PROJECT_MCP_FILE), "{oops").expect("write");
        let resolved = resolve_mcp(&paths(dir.path()), &UserConfig::default(), dir.path());
        let entry = &resolved.servers[0];
        assert_eq!(entry.name, PROJECT_MCP_FILE);
        assert!(
            entry
                .config
                .as_ref()
                .expect_err("fails")
                .contains(".mcp.json")
        );
    }
}
