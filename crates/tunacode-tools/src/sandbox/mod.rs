//! The sandbox `bash` and `run_command` run in on Linux, and how every command starts
//! (`launch.rs`): its own session, its own user, PID and mount namespaces where the kernel allows
//! (own `/proc` and `/dev/pts`, protected paths read-only, secrets masked: `mounts.rs`), Landlock for
//! the file system (reads an allow list without the secrets, writes only in the writable roots;
//! signals and abstract sockets scoped: `rules.rs`) and a seccomp filter (terminal injection, Unix
//! sockets, mounts, io_uring, the network: `filter.rs`). Everything is built in the parent, before the
//! fork, and only switched on in the child between fork and exec, so the agent itself is never
//! restricted. `policy.rs` says what a command may do; `aftercheck.rs` sets aside protected paths a command created; `support.rs` says what
//! the running kernel enforces.

mod aftercheck;
mod filter;
mod launch;
mod mounts;
mod policy;
mod rules;
mod support;

pub(crate) use aftercheck::ProtectedSnapshot;
pub(crate) use launch::Launch;
pub use policy::{SandboxError, SandboxMode, SandboxPolicy};
pub use support::{Guard, SandboxSupport, sandbox_support};

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
