//! The sandbox's seccomp filter: the second wall behind Landlock and the namespaces. Refused with
//! EPERM: pushing input into a terminal (`TIOCSTI`, `TIOCLINUX`), Unix sockets (`socket(AF_UNIX)`:
//! the way to a docker daemon, an ssh or gpg agent, the D-Bus session bus; `socketpair` stays) and
//! vsock (a virtual machine's host),
//! changing the mount tree (the read-only binds over protected paths must stay), io_uring (which
//! could open files and sockets unseen), and without the network IPv4/IPv6 and packet sockets (with
//! the egress proxy only UDP and raw ones: Landlock limits where TCP connects).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use super::policy::SandboxError;

/// `open_tree_attr` (Linux 6.15; one number on every architecture since 5.x), not in `libc` yet: it
/// clones a mount with its attributes changed, read-only taken off included.
const SYS_OPEN_TREE_ATTR: i64 = 467;

/// How much network the filter leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Network {
    /// Every socket but Unix ones.
    Open,
    /// TCP only (Landlock limits it to the egress proxy's port).
    Proxied,
    /// None.
    Closed,
}

fn setup(e: seccompiler::BackendError) -> SandboxError {
    SandboxError::Setup(e.to_string())
}

fn arg(index: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, SandboxError> {
    SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value).map_err(setup)
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, SandboxError> {
    SeccompRule::new(conditions).map_err(setup)
}

/// The `socket()` calls refused under `network`.
fn socket_rules(network: Network) -> Result<Vec<SeccompRule>, SandboxError> {
    // Unix sockets reach local daemons; vsock reaches the host of a virtual machine.
    let mut rules = vec![
        rule(vec![arg(0, SeccompCmpOp::Eq, libc::AF_UNIX as u64)?])?,
        rule(vec![arg(0, SeccompCmpOp::Eq, libc::AF_VSOCK as u64)?])?,
    ];
    if network == Network::Open {
        return Ok(rules);
    }
    for family in [libc::AF_INET, libc::AF_INET6] {
        if network == Network::Proxied {
            for kind in [libc::SOCK_DGRAM, libc::SOCK_RAW] {
                // The type argument carries SOCK_CLOEXEC/SOCK_NONBLOCK too: compare its low bits.
                rules.push(rule(vec![
                    arg(0, SeccompCmpOp::Eq, family as u64)?,
                    arg(1, SeccompCmpOp::MaskedEq(0xf), kind as u64)?,
                ])?);
            }
        } else {
            rules.push(rule(vec![arg(0, SeccompCmpOp::Eq, family as u64)?])?);
        }
    }
    rules.push(rule(vec![arg(
        0,
        SeccompCmpOp::Eq,
        libc::AF_PACKET as u64,
    )?])?);
    Ok(rules)
}

/// The filter for one command: built once per network mode, then copied.
pub(super) fn build(network: Network) -> Result<BpfProgram, SandboxError> {
    use std::sync::OnceLock;
    static OPEN: OnceLock<Result<BpfProgram, String>> = OnceLock::new();
    static PROXIED: OnceLock<Result<BpfProgram, String>> = OnceLock::new();
    static CLOSED: OnceLock<Result<BpfProgram, String>> = OnceLock::new();
    let cell = match network {
        Network::Open => &OPEN,
        Network::Proxied => &PROXIED,
        Network::Closed => &CLOSED,
    };
    cell.get_or_init(|| compile(network).map_err(|e| e.to_string()))
        .clone()
        .map_err(SandboxError::Setup)
}

fn compile(network: Network) -> Result<BpfProgram, SandboxError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, socket_rules(network)?);
    let ioctls = [libc::TIOCSTI, libc::TIOCLINUX]
        .into_iter()
        .map(|request| rule(vec![arg(1, SeccompCmpOp::Eq, request)?]))
        .collect::<Result<Vec<_>, _>>()?;
    rules.insert(libc::SYS_ioctl, ioctls);
    for call in [
        libc::SYS_io_uring_setup,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_move_mount,
        libc::SYS_open_tree,
        libc::SYS_fsopen,
        libc::SYS_fsmount,
        libc::SYS_mount_setattr,
        libc::SYS_fsconfig,
        libc::SYS_fspick,
        SYS_OPEN_TREE_ATTR,
    ] {
        rules.insert(call, Vec::new());
    }
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
