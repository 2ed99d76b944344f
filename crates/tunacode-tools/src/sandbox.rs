//! The sandbox `bash` and `run_command` run in on Linux: Landlock for the file system (read anywhere;
//! write only in the writable roots, or nowhere) and a seccomp filter for the network (no IPv4/IPv6 or
//! packet sockets, no io_uring, which could open them unseen). Both are built in the parent, before the
//! fork, and only switched on in the child between fork and exec (two system calls each, nothing that
//! allocates), so the agent itself is never restricted.

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, NetPort, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

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
    pub secrets: std::sync::Arc<crate::SecretPaths>,
    /// Paths commands may not change (git hooks and config, the project's agent settings).
    pub protected: std::sync::Arc<crate::ProtectedPaths>,
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

/// Device files every command may write (output thrown away, terminals).
const WRITABLE_DEVICES: [&str; 5] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/pts",
];

/// The Landlock access rights we handle (ABI 5: files, directories, truncation, device ioctls).
fn all_fs() -> landlock::BitFlags<AccessFs> {
    AccessFs::from_all(ABI::V5)
}

/// Whether this kernel enforces Landlock (checked once by the caller, at start).
pub fn landlock_available() -> bool {
    Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(ABI::V1))
        .and_then(|r| r.create())
        .is_ok()
}

/// A sandbox ready to be switched on in a child.
pub struct PreparedSandbox {
    ruleset: Option<RulesetCreated>,
    network_filter: Option<BpfProgram>,
}

impl std::fmt::Debug for PreparedSandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedSandbox")
            .field("files", &self.ruleset.is_some())
            .field("network", &self.network_filter.is_some())
            .finish()
    }
}

impl SandboxPolicy {
    /// Builds the rules for one command (`None` when the mode is off).
    pub fn prepare(&self) -> Result<Option<PreparedSandbox>, SandboxError> {
        if self.mode == SandboxMode::Off {
            return Ok(None);
        }
        let ruleset = self.file_rules()?;
        let network_filter = if self.network {
            None
        } else {
            Some(network_filter(self.proxy_port.is_some())?)
        };
        Ok(Some(PreparedSandbox {
            ruleset: Some(ruleset),
            network_filter,
        }))
    }

    fn file_rules(&self) -> Result<RulesetCreated, SandboxError> {
        let setup = |e: landlock::RulesetError| SandboxError::Setup(e.to_string());
        let read = AccessFs::from_read(ABI::V5);
        let root = PathFd::new("/").map_err(|e| SandboxError::Setup(e.to_string()))?;
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(all_fs())
            .map_err(|_| SandboxError::Unsupported)?
            .set_compatibility(CompatLevel::BestEffort);
        match (self.network, self.proxy_port) {
            (true, _) => {}
            // Connections to the proxy's port only: this needs Landlock's network rules (ABI 4).
            (false, Some(_)) => {
                ruleset = ruleset
                    .set_compatibility(CompatLevel::HardRequirement)
                    .handle_access(AccessNet::from_all(ABI::V4))
                    .map_err(|_| {
                        SandboxError::Setup(
                            "this kernel's Landlock cannot limit connections (ABI 4 is needed), \
                             so network exceptions are not available"
                                .into(),
                        )
                    })?
                    .set_compatibility(CompatLevel::BestEffort);
            }
            // Where the kernel has it (ABI 4), Landlock also refuses TCP; seccomp covers the rest.
            (false, None) => {
                ruleset = ruleset
                    .handle_access(AccessNet::from_all(ABI::V4))
                    .map_err(setup)?;
            }
        }
        let mut created = ruleset.create().map_err(|_| SandboxError::Unsupported)?;
        if let (false, Some(port)) = (self.network, self.proxy_port) {
            created = created
                .add_rule(NetPort::new(port, AccessNet::ConnectTcp))
                .map_err(setup)?;
        }
        created = created
            .add_rule(PathBeneath::new(root, read))
            .map_err(setup)?;
        let writable: Vec<&Path> = match self.mode {
            SandboxMode::WorkspaceWrite => {
                self.writable_roots.iter().map(PathBuf::as_path).collect()
            }
            _ => Vec::new(),
        };
        for root in writable {
            // A root that does not exist (yet) cannot be written to anyway.
            if let Ok(fd) = PathFd::new(root) {
                created = created
                    .add_rule(PathBeneath::new(fd, all_fs()))
                    .map_err(setup)?;
            }
        }
        for device in WRITABLE_DEVICES {
            if let Ok(fd) = PathFd::new(device) {
                let access = AccessFs::from_file(ABI::V5) | AccessFs::ReadDir;
                created = created
                    .add_rule(PathBeneath::new(fd, access))
                    .map_err(setup)?;
            }
        }
        Ok(created)
    }
}

/// The seccomp filter: `socket()` for IPv4, IPv6 and packet sockets, and io_uring, fail with EPERM.
/// With a proxy, TCP sockets stay allowed (Landlock limits where they connect) and only UDP and raw
/// IPv4/IPv6 sockets are refused.
fn network_filter(proxied: bool) -> Result<BpfProgram, SandboxError> {
    let setup = |e: seccompiler::BackendError| SandboxError::Setup(e.to_string());
    let arg = |index: u8, op: SeccompCmpOp, value: i32| {
        SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value as u64)
    };
    let mut socket_rules = Vec::new();
    for family in [libc::AF_INET, libc::AF_INET6] {
        if proxied {
            for kind in [libc::SOCK_DGRAM, libc::SOCK_RAW] {
                // The type argument carries SOCK_CLOEXEC/SOCK_NONBLOCK too: compare its low bits.
                let conditions = vec![
                    arg(0, SeccompCmpOp::Eq, family).map_err(setup)?,
                    arg(1, SeccompCmpOp::MaskedEq(0xf), kind).map_err(setup)?,
                ];
                socket_rules.push(SeccompRule::new(conditions).map_err(setup)?);
            }
        } else {
            let condition = arg(0, SeccompCmpOp::Eq, family).map_err(setup)?;
            socket_rules.push(SeccompRule::new(vec![condition]).map_err(setup)?);
        }
    }
    let packet = arg(0, SeccompCmpOp::Eq, libc::AF_PACKET).map_err(setup)?;
    socket_rules.push(SeccompRule::new(vec![packet]).map_err(setup)?);
    let mut rules = std::collections::BTreeMap::new();
    rules.insert(libc::SYS_socket, socket_rules);
    rules.insert(libc::SYS_io_uring_setup, Vec::new());
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|e| SandboxError::Setup(format!("seccomp: {e}")))?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(setup)?;
    BpfProgram::try_from(filter).map_err(setup)
}

impl PreparedSandbox {
    /// Switches the sandbox on in the child of `cmd`, between fork and exec.
    pub fn apply_to(mut self, cmd: &mut tokio::process::Command) {
        let mut ruleset = self.ruleset.take();
        let filter = self.network_filter.take();
        let enter = move || -> std::io::Result<()> {
            if let Some(ruleset) = ruleset.take() {
                ruleset
                    .restrict_self()
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
            }
            if let Some(filter) = &filter {
                seccompiler::apply_filter(filter)
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
            }
            Ok(())
        };
        pre_exec::install(cmd, enter);
    }
}

/// The one place that needs `unsafe`: `pre_exec` runs its closure in the forked child. Ours only
/// makes system calls (prctl, landlock_restrict_self, seccomp) on rules built before the fork; it
/// takes no lock and allocates nothing on the way to exec (an error message is built only when a
/// call failed, and the child then exits).
#[allow(unsafe_code)]
mod pre_exec {
    pub(super) fn install(
        cmd: &mut tokio::process::Command,
        enter: impl FnMut() -> std::io::Result<()> + Send + Sync + 'static,
    ) {
        // SAFETY: see the module comment; the closure is async-signal-safe on its success path.
        unsafe {
            cmd.pre_exec(enter);
        }
    }
}

#[cfg(test)]
#[path = "sandbox_tests.rs"]
mod tests;
