//! MCP servers as the runtime reports them and as an editor hands them over.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The prefix of every MCP tool's name (`mcp__<server>__<tool>`).
pub const MCP_TOOL_PREFIX: &str = "mcp__";

/// Where a server's entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfigSource {
    /// The user's config file.
    User,
    /// The project's `.mcp.json` (used only once the user approved it).
    Project,
    /// Handed over by an editor (ACP `session/new`).
    Client,
}

/// Where a server is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerState {
    /// `"disabled": true` in the config.
    Disabled,
    /// Starting (or waiting for the user to approve the project's `.mcp.json`).
    Starting,
    /// Connected; its tools are offered.
    Ready,
    /// Could not start, or stopped working; the reason.
    Failed(String),
    /// Stopped at shutdown.
    Stopped,
}

impl ServerState {
    /// Its name in listings and the public schema: `disabled`, `starting`, `ready`, `failed`,
    /// `stopped`.
    pub fn label(&self) -> &'static str {
        match self {
            ServerState::Disabled => "disabled",
            ServerState::Starting => "starting",
            ServerState::Ready => "ready",
            ServerState::Failed(_) => "failed",
            ServerState::Stopped => "stopped",
        }
    }

    /// Why it failed, when it did.
    pub fn error(&self) -> Option<&str> {
        match self {
            ServerState::Failed(e) => Some(e),
            _ => None,
        }
    }
}

/// One server's status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerStatus {
    /// The configured name.
    pub name: String,
    /// Where it is.
    pub state: ServerState,
    /// Where its entry came from.
    pub source: ConfigSource,
    /// The protocol version it speaks, once connected.
    pub protocol: Option<String>,
    /// The names its tools are offered under, once connected.
    pub tools: Vec<String>,
}

impl ServerStatus {
    /// Its state in words: `ready (2025-11-25, 6 tools)`, `failed: why`, `starting`, ….
    pub fn describe_state(&self) -> String {
        match &self.state {
            ServerState::Ready => format!(
                "ready ({}, {} tools)",
                self.protocol.as_deref().unwrap_or("?"),
                self.tools.len()
            ),
            ServerState::Failed(e) => format!("failed: {e}"),
            other => other.label().to_string(),
        }
    }
}

/// A server an editor hands over with its session, as the editor describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpServerSpec {
    /// Its name.
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
}

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpTransport {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the inherited environment.
        env: Vec<(String, String)>,
        /// The directory it runs in (the session's working directory when absent).
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// The endpoint.
        url: String,
        /// Headers sent with every request.
        headers: Vec<(String, String)>,
    },
    /// A transport TunaCode does not speak (the editor's SSE, say): listed as failed with the reason.
    Unsupported {
        /// Why it cannot be used, in words.
        reason: String,
    },
}

/// Said when the project's `.mcp.json` waits for approval.
pub fn pending_mcp_notice(file: &Path, servers: &[String]) -> String {
    format!(
        "{} names MCP servers ({}) that are not started until you approve them: \
         `tunacode mcp approve` (or /mcp approve in the UI)",
        file.display(),
        servers.join(", ")
    )
}
