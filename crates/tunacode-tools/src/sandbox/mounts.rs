//! What a sandboxed command's own mount namespace looks like, planned in the parent (every path as a
//! C string, every flag looked up) so the child only makes system calls: a fresh `/proc` for its PID
//! namespace (it sees only its own processes), a fresh `/dev/pts` (the agent's terminal is not
//! there), read-only binds over the protected paths that exist (git hooks and config, the project's
//! agent settings: Landlock cannot carve a read-only subtree out of a writable root), and masks over
//! the secret paths that exist (an empty read-only directory, or `/dev/null` for a file).

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::policy::{SandboxError, SandboxPolicy};

/// One step of the plan.
#[derive(Debug, Clone)]
pub(super) enum Mount {
    /// Bind `path` onto itself, writable: a mount point cannot be renamed or removed, so a
    /// repository's `.git` stays where the read-only binds inside it are.
    Pin { path: CString },
    /// Bind `path` onto itself and make it read-only, keeping `locked` (flags the kernel will not
    /// let a namespace drop: nosuid, nodev, noexec, atime).
    ReadOnly {
        path: CString,
        locked: libc::c_ulong,
    },
    /// An empty read-only directory over `path`.
    MaskDir { path: CString },
    /// `/dev/null` over the file `path`.
    MaskFile { path: CString },
}

/// The whole plan for one command.
#[derive(Debug, Clone, Default)]
pub(super) struct MountPlan {
    pub steps: Vec<Mount>,
}

/// At most this many entries are looked at when searching the workspace for `.env*` files to hide;
/// a larger workspace cannot have them hidden (the command is refused rather than run with them
/// readable).
const ENV_SEARCH_BUDGET: usize = 200_000;

fn c_path(path: &Path) -> Option<CString> {
    CString::new(path.as_os_str().as_bytes()).ok()
}

/// The flags of the mount `path` is on that a bind of it must keep.
fn locked_flags(path: &Path) -> libc::c_ulong {
    let Ok(stat) = nix::sys::statvfs::statvfs(path) else {
        return 0;
    };
    use nix::sys::statvfs::FsFlags;
    let pairs = [
        (FsFlags::ST_NOSUID, libc::MS_NOSUID),
        (FsFlags::ST_NODEV, libc::MS_NODEV),
        (FsFlags::ST_NOEXEC, libc::MS_NOEXEC),
        (FsFlags::ST_NOATIME, libc::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, libc::MS_NODIRATIME),
        (FsFlags::ST_RELATIME, libc::MS_RELATIME),
    ];
    pairs
        .iter()
        .filter(|(flag, _)| stat.flags().contains(*flag))
        .fold(0, |acc, (_, ms)| acc | ms)
}

impl MountPlan {
    /// The plan for `policy`: protected paths read-only (workspace-write only: read-only mode writes
    /// nothing anyway), secrets masked, and the workspace's `.env*` files when the user hides them.
    pub(super) fn for_policy(policy: &SandboxPolicy) -> Result<Self, SandboxError> {
        let mut steps = Vec::new();
        for root in policy.protected.roots() {
            let git = root.join(".git");
            let is_dir = std::fs::symlink_metadata(&git).is_ok_and(|m| m.is_dir());
            if let (true, Some(path)) = (is_dir, c_path(&git)) {
                steps.push(Mount::Pin { path });
            }
        }
        for path in policy.protected.sandbox_targets() {
            // A bind follows links, and a link's target may be anywhere: a protected name that is a
            // symlink is left to the check after the command (`aftercheck`).
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let Some(c) = c_path(&path) else { continue };
            if meta.file_type().is_symlink() {
                continue;
            }
            steps.push(Mount::ReadOnly {
                path: c,
                locked: locked_flags(&path),
            });
        }
        for path in policy.secrets.denied() {
            steps.extend(mask(path, false));
        }
        // The whole repository (the top of the protected roots), or the working directory.
        let top = policy
            .protected
            .roots()
            .last()
            .or(policy.writable_roots.first());
        if let Some(root) = top
            && policy.secrets.hides_env_files()
        {
            let mut found = Vec::new();
            let mut budget = ENV_SEARCH_BUDGET;
            env_files(root, &mut found, &mut budget);
            if budget == 0 {
                return Err(SandboxError::Setup(format!(
                    "{} has more than {ENV_SEARCH_BUDGET} entries, too many to find every .env file \
                     to hide (settings.sandbox.hide_env_files)",
                    root.display()
                )));
            }
            // A linked `.env` is masked where it leads (a bind follows the link).
            steps.extend(found.iter().filter_map(|path| mask(path, true)));
        }
        Ok(MountPlan { steps })
    }
}

/// What covers `path`; `follow`: judged by where a link leads (else a link is left alone).
fn mask(path: &Path, follow: bool) -> Option<Mount> {
    let meta = if follow {
        std::fs::metadata(path).ok()?
    } else {
        std::fs::symlink_metadata(path).ok()?
    };
    let c = c_path(path)?;
    if meta.is_dir() {
        Some(Mount::MaskDir { path: c })
    } else if meta.is_file() {
        Some(Mount::MaskFile { path: c })
    } else {
        None
    }
}

/// Every `.env*` file below `dir` (links not followed, `.git` not searched).
fn env_files(dir: &Path, out: &mut Vec<PathBuf>, budget: &mut usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if (kind.is_file() || kind.is_symlink()) && crate::secrets::is_secret_file_name(&name) {
            out.push(entry.path());
        } else if kind.is_dir() && name != ".git" {
            env_files(&entry.path(), out, budget);
        }
    }
}
