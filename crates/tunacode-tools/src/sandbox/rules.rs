//! The sandbox's Landlock ruleset. Reads are an allow list: the file system from its top level down,
//! minus the secret paths (each ancestor of a secret gets directory listing only, and its other
//! entries full read access); writes only in the writable roots; TCP only to the egress proxy's port
//! (or none); and, where the kernel has Landlock ABI 6, no signals to processes and no connections to
//! abstract Unix sockets outside the sandbox.

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, NetPort, PathBeneath,
    PathFd, Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope,
};

use super::policy::{SandboxError, SandboxMode, SandboxPolicy};

/// Device files every command may write (output thrown away, its own terminals).
const WRITABLE_DEVICES: [&str; 6] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
];

/// How deep the allow list descends to step around a secret (`/home/u/.config/gcloud` is 4).
const MAX_DEPTH: usize = 8;

/// The Landlock access rights we handle (ABI 5: files, directories, truncation, device ioctls).
fn all_fs() -> BitFlags<AccessFs> {
    AccessFs::from_all(ABI::V5)
}

fn read() -> BitFlags<AccessFs> {
    AccessFs::from_read(ABI::V5)
}

fn setup(e: landlock::RulesetError) -> SandboxError {
    SandboxError::Setup(e.to_string())
}

/// Builds the ruleset for `policy`.
pub(super) fn build(policy: &SandboxPolicy) -> Result<RulesetCreated, SandboxError> {
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(all_fs())
        .map_err(|_| SandboxError::Unsupported)?
        .set_compatibility(CompatLevel::BestEffort)
        .scope(Scope::from_all(ABI::V6))
        .map_err(setup)?;
    match (policy.network, policy.proxy_port) {
        (true, _) => {}
        // Connections to the proxy's port only: this needs Landlock's network rules (ABI 4).
        (false, Some(_)) => {
            ruleset = ruleset
                .set_compatibility(CompatLevel::HardRequirement)
                .handle_access(AccessNet::from_all(ABI::V4))
                .map_err(|_| {
                    SandboxError::Setup(
                        "this kernel's Landlock cannot limit connections (ABI 4 is needed), so \
                         network exceptions are not available"
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
    if let (false, Some(port)) = (policy.network, policy.proxy_port) {
        created = created
            .add_rule(NetPort::new(port, AccessNet::ConnectTcp))
            .map_err(setup)?;
    }
    let writable: Vec<&Path> = match policy.mode {
        SandboxMode::WorkspaceWrite => policy.writable_roots.iter().map(PathBuf::as_path).collect(),
        _ => Vec::new(),
    };
    for (path, access) in read_grants(policy.secrets.denied(), &writable) {
        created = add(created, &path, access)?;
    }
    for root in writable {
        created = add(created, root, all_fs())?;
    }
    for device in WRITABLE_DEVICES {
        let access = AccessFs::from_file(ABI::V5) | AccessFs::ReadDir;
        created = add(created, Path::new(device), access)?;
    }
    Ok(created)
}

/// Adds a rule for `path`; a path that does not exist (yet) is skipped: nothing to grant.
fn add(
    created: RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
) -> Result<RulesetCreated, SandboxError> {
    match PathFd::new(path) {
        Ok(fd) => created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(setup),
        Err(_) => Ok(created),
    }
}

/// The read rules: `/` whole when no secret is below it; otherwise listing only on each ancestor of
/// a secret and full reads on its other entries, recursively. Secrets inside a writable root are
/// left to the mount namespace (Landlock cannot take back what a writable root grants).
pub(super) fn read_grants(
    denied: &[PathBuf],
    writable: &[&Path],
) -> Vec<(PathBuf, BitFlags<AccessFs>)> {
    let denied: Vec<&Path> = denied
        .iter()
        .map(PathBuf::as_path)
        .filter(|d| d.is_absolute() && !writable.iter().any(|w| d.starts_with(w)))
        .collect();
    let mut grants = Vec::new();
    grant(Path::new("/"), &denied, 0, &mut grants);
    grants
}

fn grant(
    dir: &Path,
    denied: &[&Path],
    depth: usize,
    grants: &mut Vec<(PathBuf, BitFlags<AccessFs>)>,
) {
    if denied.iter().any(|d| dir.starts_with(d)) {
        return;
    }
    let below: Vec<&Path> = denied
        .iter()
        .copied()
        .filter(|d| d.starts_with(dir))
        .collect();
    if below.is_empty() {
        grants.push((dir.to_path_buf(), read()));
        return;
    }
    grants.push((dir.to_path_buf(), AccessFs::ReadDir.into()));
    if depth >= MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            grant(&path, &below, depth + 1, grants);
        } else if !below.iter().any(|d| path.starts_with(d)) {
            grants.push((path, read() & AccessFs::from_file(ABI::V5)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allow_list_steps_around_secrets_only() {
        let home = tempfile::tempdir().expect("home");
        let h = home.path();
        for dir in [".ssh", ".config/gcloud", ".config/nvim", "src"] {
            std::fs::create_dir_all(h.join(dir)).expect("dir");
        }
        std::fs::write(h.join(".netrc"), "machine x").expect("file");
        std::fs::write(h.join(".bashrc"), "").expect("file");
        let denied = [h.join(".ssh"), h.join(".config/gcloud"), h.join(".netrc")];
        let grants = read_grants(&denied, &[]);
        let full: Vec<&PathBuf> = grants
            .iter()
            .filter(|(_, a)| a.contains(AccessFs::ReadFile))
            .map(|(p, _)| p)
            .collect();
        for open in [".config/nvim", "src", ".bashrc"] {
            assert!(full.contains(&&h.join(open)), "{open} readable: {full:?}");
        }
        for secret in &denied {
            assert!(
                !grants.iter().any(|(p, _)| p.starts_with(secret)),
                "{} not granted",
                secret.display()
            );
        }
        assert!(
            full.contains(&&PathBuf::from("/usr")),
            "other top-level dirs whole"
        );
    }
}
