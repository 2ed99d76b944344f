//! What a sandboxed command may do: the [`SandboxMode`] and the rest of the [`SandboxPolicy`], and
//! [`SandboxError`], how setting one up fails. The rules, the filter and the mounts are built from it.

use std::path::PathBuf;
use std::sync::Arc;

use crate::protected::ProtectedPaths;
use crate::secrets::SecretPaths;

/// How commands are confined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SandboxMode {
    /// Read anywhere, write only in the writable roots, no network.
    #[default]
    WorkspaceWrite,
    /// Read anywhere, write nowhere, no network.
    ReadOnly,
    /// No sandbox (`danger-full-access`).
    Off,
}

impl SandboxMode {
    /// Parses `workspace-write`, `read-only`, `off` (or `danger-full-access`).
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "workspace-write" => Some(SandboxMode::WorkspaceWrite),
            "read-only" => Some(SandboxMode::ReadOnly),
            "off" | "danger-full-access" => Some(SandboxMode::Off),
            _ => None,
        }
    }

    /// The name users write.
    pub fn name(self) -> &'static str {
        match self {
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::Off => "off",
        }
    }
}

/// Where and how commands run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SandboxPolicy {
    /// The mode.
    pub mode: SandboxMode,
    /// Directories commands may write in (workspace-write): the working directory, the temp dir, and
    /// those the config adds.
    pub writable_roots: Vec<PathBuf>,
    /// Whether commands may use the network anyway.
    pub network: bool,
    /// Without the network: the loopback port of the egress proxy that lets through the hosts the
    /// user allowed. TCP may connect to that port only (Landlock), and no UDP, raw or packet socket
    /// can be opened (seccomp); commands find the proxy in `HTTP(S)_PROXY`.
    pub proxy_port: Option<u16>,
    /// Hosts commands may reach through the egress proxy without the network (patterns like
    /// `*.crates.io`); empty: none, and no proxy runs.
    pub allowed_hosts: Vec<String>,
    /// Paths commands may not read (credentials, the agent's own files).
    pub secrets: Arc<SecretPaths>,
    /// Paths commands may not change (git hooks and config, the project's agent settings).
    pub protected: Arc<ProtectedPaths>,
}

/// Why a sandbox could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The kernel has no Landlock (or it is disabled).
    #[error("this kernel does not offer Landlock, so commands cannot be sandboxed")]
    Unsupported,
    /// Building the rules failed.
    #[error("the sandbox could not be set up: {0}")]
    Setup(String),
}
