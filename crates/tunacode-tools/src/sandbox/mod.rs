//! The sandbox `bash` and `run_command` run in on Linux, and how every command starts
//! (`launch.rs`): its own session, its own user, PID and mount namespaces where the kernel allows
//! (own `/proc` and `/dev/pts`, protected paths read-only, secrets masked: `mounts.rs`), Landlock for
//! the file system (reads an allow list without the secrets, writes only in the writable roots;
//! signals and abstract sockets scoped: `rules.rs`) and a seccomp filter (terminal injection, Unix
//! sockets, mounts, io_uring, the network: `filter.rs`). Everything is built in the parent, before the
//! fork, and only switched on in the child between fork and exec, so the agent itself is never
//! restricted. `aftercheck.rs` sets aside protected paths a command created; `support.rs` says what
//! the running kernel enforces.

mod aftercheck;
mod filter;
mod launch;
mod mounts;
mod rules;
mod support;

use std::path::PathBuf;

pub(crate) use aftercheck::ProtectedSnapshot;
pub(crate) use launch::Launch;
pub use support::{Guard, SandboxSupport, sandbox_support};

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
    pub secrets: std::sync::Arc<crate::secrets::SecretPaths>,
    /// Paths commands may not change (git hooks and config, the project's agent settings).
    pub protected: std::sync::Arc<crate::protected::ProtectedPaths>,
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

/// Whether this kernel enforces Landlock (probed once; call it off the async threads).
pub fn landlock_available() -> bool {
    sandbox_support().landlock
}

/// A command's launch, ready to be installed on its `Command`, and what to check after it.
pub struct PreparedSandbox {
    pub(crate) launch: Launch,
    pub(crate) snapshot: Option<ProtectedSnapshot>,
}

impl std::fmt::Debug for PreparedSandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedSandbox")
            .field("files", &self.launch.ruleset.is_some())
            .field("filter", &self.launch.filter.is_some())
            .field("namespaces", &self.launch.namespaces.is_some())
            .finish()
    }
}

impl SandboxPolicy {
    /// Builds the launch of one command (blocking: it reads the file system). With the mode off (or
    /// a run outside the sandbox) the command is only contained: its own session, a reaper, the
    /// agent's lifetime.
    pub fn prepare(&self, outside_sandbox: bool) -> Result<PreparedSandbox, SandboxError> {
        let mut launch = Launch::contained();
        if self.mode == SandboxMode::Off || outside_sandbox {
            return Ok(PreparedSandbox {
                launch,
                snapshot: None,
            });
        }
        let support = sandbox_support();
        if !support.landlock {
            return Err(SandboxError::Unsupported);
        }
        launch.ruleset = Some(rules::build(self)?);
        let network = match (self.network, self.proxy_port) {
            (true, _) => filter::Network::Open,
            (false, Some(_)) => filter::Network::Proxied,
            (false, None) => filter::Network::Closed,
        };
        launch.filter = Some(filter::build(network)?);
        if support.namespaces {
            let plan = mounts::MountPlan::for_policy(self)?;
            launch.namespaces = Some(launch::Namespaces::new(plan));
        }
        let snapshot = (self.mode == SandboxMode::WorkspaceWrite)
            .then(|| ProtectedSnapshot::take(&self.protected));
        Ok(PreparedSandbox { launch, snapshot })
    }
}

impl PreparedSandbox {
    /// Whether the command is confined (not only contained).
    pub fn confined(&self) -> bool {
        self.launch.ruleset.is_some()
    }

    /// Installs the launch on `cmd`; returns what to check after the command.
    pub(crate) fn install(self, cmd: &mut tokio::process::Command) -> Option<ProtectedSnapshot> {
        self.launch.install(cmd.as_std_mut());
        self.snapshot
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod escape_tests;
