//! What the running kernel lets the sandbox enforce, probed once per process, and the list of guards
//! `/permissions` shows: each with whether it holds here and how.

use std::sync::OnceLock;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr, Scope,
};

use super::launch::{Launch, Namespaces};
use super::mounts::MountPlan;

/// What this kernel offers the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SandboxSupport {
    /// Landlock for the file system (ABI 1).
    pub landlock: bool,
    /// Landlock's TCP rules (ABI 4).
    pub landlock_network: bool,
    /// Landlock's scopes: signals and abstract Unix sockets (ABI 6).
    pub landlock_scopes: bool,
    /// User, PID and mount namespaces for commands (own `/proc`, read-only binds, teardown).
    pub namespaces: bool,
}

/// One guard and whether it holds on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guard {
    /// What it guards against.
    pub name: &'static str,
    /// Whether the running kernel enforces it.
    pub enforced: bool,
    /// How (or, when not enforced, what is missing).
    pub how: String,
}

static SUPPORT: OnceLock<SandboxSupport> = OnceLock::new();

/// What the running kernel offers (probed on the first call, which starts one short process: call
/// it off the async threads).
pub fn sandbox_support() -> SandboxSupport {
    *SUPPORT.get_or_init(probe)
}

fn ruleset_works(build: impl FnOnce() -> Result<Ruleset, landlock::RulesetError>) -> bool {
    build().and_then(|r| r.create()).is_ok()
}

fn probe() -> SandboxSupport {
    let hard = || Ruleset::default().set_compatibility(CompatLevel::HardRequirement);
    let landlock = ruleset_works(|| hard().handle_access(AccessFs::from_all(ABI::V1)));
    SandboxSupport {
        landlock,
        landlock_network: ruleset_works(|| hard().handle_access(AccessNet::from_all(ABI::V4))),
        landlock_scopes: ruleset_works(|| hard().scope(Scope::from_all(ABI::V6))),
        namespaces: namespaces_work(),
    }
}

/// Starts `sh -c 'test $$ = 1'` in the namespaces with a fresh `/proc` and `/dev/pts`: it succeeds
/// only where the kernel lets an unprivileged process do all of it (AppArmor's user-namespace
/// restriction or a container's masked `/proc` make it fail, and commands then run without them).
fn namespaces_work() -> bool {
    let mut cmd = std::process::Command::new("/bin/sh");
    cmd.args(["-c", "test $$ = 1"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut launch = Launch::contained();
    launch.namespaces = Some(Namespaces::new(MountPlan::default()));
    launch.install(&mut cmd);
    cmd.status().is_ok_and(|s| s.success())
}

impl SandboxSupport {
    /// The guards, each with whether it holds here.
    pub fn guards(&self) -> Vec<Guard> {
        let ns = self.namespaces;
        let missing_ns = "not enforced: this kernel does not let the agent create user namespaces";
        let pick =
            |on: bool, yes: &str, no: &str| if on { yes.to_string() } else { no.to_string() };
        vec![
            Guard {
                name: "writes outside the writable roots",
                enforced: self.landlock,
                how: pick(self.landlock, "Landlock", "not enforced: no Landlock"),
            },
            Guard {
                name: "reading credentials (~/.ssh, ~/.aws, …, the agent's config and data)",
                enforced: self.landlock,
                how: pick(
                    self.landlock,
                    if ns { "Landlock read allow list, masks in the command's mount namespace" } else { "Landlock read allow list (not inside a writable root: no mount namespace)" },
                    "not enforced: no Landlock",
                ),
            },
            Guard {
                name: "changing git hooks and config, .tunacode/, .mcp.json, AGENTS.md",
                enforced: ns,
                how: pick(ns, "read-only binds in the command's mount namespace; new ones are set aside after the command", "only checked after the command (no mount namespace): new or changed protected files are set aside"),
            },
            Guard {
                name: "seeing other processes (/proc/<pid>/environ) and signalling them",
                enforced: ns || self.landlock_scopes,
                how: match (ns, self.landlock_scopes) {
                    (true, _) => "own PID namespace with its own /proc".into(),
                    (false, true) => "Landlock signal scope; /proc still lists other processes (the agent is not dumpable)".into(),
                    (false, false) => missing_ns.into(),
                },
            },
            Guard {
                name: "processes outliving their call",
                enforced: true,
                how: pick(ns, "PID namespace torn down when the command ends; dies with the agent", "a reaper (child subreaper) kills what the command left; dies with the agent"),
            },
            Guard {
                name: "typing into the user's terminal (TIOCSTI)",
                enforced: true,
                how: "a new session without a terminal; seccomp refuses TIOCSTI and TIOCLINUX".into(),
            },
            Guard {
                name: "Unix sockets (docker, ssh-agent, D-Bus)",
                enforced: self.landlock,
                how: pick(self.landlock, if self.landlock_scopes { "seccomp refuses socket(AF_UNIX); Landlock scopes abstract sockets" } else { "seccomp refuses socket(AF_UNIX)" }, "not enforced: no sandbox"),
            },
            Guard {
                name: "network",
                enforced: self.landlock,
                how: pick(self.landlock_network, "seccomp (socket families) and Landlock (TCP ports)", "seccomp (socket families)"),
            },
        ]
    }
}
