//! Reading a sub-agent's worktree after it ran, as untrusted ground: the files it holds (git's
//! ignore rules applied, `.git` never entered, no link followed) and each file's bytes read beneath
//! the worktree with no link followed anywhere on the way, so a link it planted can never make the
//! agent read (and offer) a file from elsewhere.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The files and links under `tree`, relative to it.
pub(super) fn files(tree: &Path) -> Vec<PathBuf> {
    let walk = ignore::WalkBuilder::new(tree)
        .hidden(false)
        .git_ignore(true)
        .git_exclude(false)
        .git_global(false)
        .ignore(false)
        .parents(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| entry.file_name() != ".git")
        .build();
    walk.flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file() || t.is_symlink()))
        .filter_map(|e| e.path().strip_prefix(tree).ok().map(Path::to_path_buf))
        .collect()
}

/// What one path holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Found {
    /// Nothing.
    Missing,
    /// A regular file.
    File {
        /// Its bytes.
        bytes: Vec<u8>,
        /// Whether it is executable.
        executable: bool,
    },
    /// A symbolic link to this target.
    Link(Vec<u8>),
    /// Anything else (a folder where a file was, a device, a path through a link).
    Other,
}

impl Found {
    /// What `path` holds in the worktree `tree` (`path` relative to it).
    pub(super) fn read(tree: &Path, path: &Path) -> Found {
        use std::os::unix::ffi::OsStrExt;
        // A folder on the way that became a link: nothing here is read through it.
        let mut walked = tree.to_path_buf();
        let parents = path.parent().into_iter().flat_map(Path::components);
        for part in parents {
            walked.push(part);
            match std::fs::symlink_metadata(&walked) {
                Ok(meta) if meta.is_dir() => {}
                Ok(_) => return Found::Other,
                Err(_) => return Found::Missing,
            }
        }
        let full = tree.join(path);
        let Ok(meta) = std::fs::symlink_metadata(&full) else {
            return Found::Missing;
        };
        if meta.file_type().is_symlink() {
            return match std::fs::read_link(&full) {
                Ok(target) => Found::Link(target.as_os_str().as_bytes().to_vec()),
                Err(_) => Found::Other,
            };
        }
        match tunacode_tools::read_workspace_file(tree, path) {
            Ok(bytes) => Found::File {
                bytes,
                executable: meta.permissions().mode() & 0o111 != 0,
            },
            Err(_) => Found::Other,
        }
    }

    /// What a base entry of `mode` with these bytes is.
    pub(super) fn from_base(mode: &str, bytes: Vec<u8>) -> Found {
        match mode {
            "100644" => Found::File {
                bytes,
                executable: false,
            },
            "100755" => Found::File {
                bytes,
                executable: true,
            },
            "120000" => Found::Link(bytes),
            _ => Found::Other,
        }
    }

    /// The bytes of a regular file (`Ok(None)`: missing; `Err`: not a regular file).
    pub(super) fn bytes(&self) -> Result<Option<&[u8]>, ()> {
        match self {
            Found::Missing => Ok(None),
            Found::File { bytes, .. } => Ok(Some(bytes)),
            Found::Link(_) | Found::Other => Err(()),
        }
    }

    /// Whether it is an executable file.
    pub(super) fn executable(&self) -> bool {
        matches!(
            self,
            Found::File {
                executable: true,
                ..
            }
        )
    }
}

/// What says a file was not touched since it was checked out: its inode and its change time (which
/// no write can leave as it was, and no program can set back), with its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    dev: u64,
    ino: u64,
    ctime: i64,
    ctime_nsec: i64,
    size: u64,
}

/// The stamp of `path` itself (a link's own, not its target's); `None` when it is not there.
pub(super) fn stamp(path: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path).ok()?;
    Some(Stamp {
        dev: meta.dev(),
        ino: meta.ino(),
        ctime: meta.ctime(),
        ctime_nsec: meta.ctime_nsec(),
        size: meta.size(),
    })
}
