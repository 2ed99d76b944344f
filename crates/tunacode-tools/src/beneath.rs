//! File operations confined to the workspace. Every path is opened relative to a descriptor of the
//! workspace root and never through a symbolic link: `openat2` with `RESOLVE_BENEATH` and
//! `RESOLVE_NO_SYMLINKS`, or, where the kernel has no `openat2` (before Linux 5.6, or a seccomp
//! profile that refuses it), one `openat` with `O_NOFOLLOW` per component. A link put in place or
//! swapped in after the workspace checked a path makes the operation fail (`ELOOP`); it never
//! redirects it. New files are created with `O_EXCL` in their directory's descriptor, replacing a
//! file renames inside that descriptor (`renameat`), and removing one unlinks the name itself.
//!
//! Paths given here are relative to the root, with no `.`, `..` or link in them (the workspace's
//! [`Located::real`](crate::workspace::Located) form). Everything blocks: call from blocking threads.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, OpenHow, ResolveFlag, openat, openat2, renameat};
use nix::sys::stat::{Mode, fstatat, mkdirat};
use nix::unistd::{UnlinkatFlags, unlinkat};

/// Whether this kernel has `openat2` (cleared the first time it says it has not).
static OPENAT2: AtomicBool = AtomicBool::new(true);

/// A directory descriptor of the workspace root, every operation beneath it.
#[derive(Debug)]
pub(crate) struct Beneath {
    root: OwnedFd,
}

impl Beneath {
    /// Opens the root directory.
    pub(crate) fn new(root: &Path) -> io::Result<Self> {
        let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
        let root = nix::fcntl::open(root, flags, Mode::empty())?;
        Ok(Beneath { root })
    }

    /// Opens the file at `rel` for reading (blocks on a pipe until a writer comes, like `open`).
    pub(crate) fn open_read(&self, rel: &Path) -> io::Result<File> {
        let fd = self.open_at(rel, OFlag::O_RDONLY | OFlag::O_NOCTTY, Mode::empty())?;
        Ok(File::from(fd))
    }

    /// Opens the regular file at `rel` for reading; anything else (a pipe, a device, a directory)
    /// is an error, and opening it never blocks.
    pub(crate) fn open_regular(&self, rel: &Path) -> io::Result<File> {
        let flags = OFlag::O_RDONLY | OFlag::O_NOCTTY | OFlag::O_NONBLOCK;
        let file = File::from(self.open_at(rel, flags, Mode::empty())?);
        let meta = file.metadata()?;
        if meta.is_dir() {
            return Err(io::Error::from(io::ErrorKind::IsADirectory));
        }
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file",
            ));
        }
        Ok(file)
    }

    /// The contents of the regular file at `rel` (see [`Beneath::open_regular`]).
    pub(crate) fn read_regular(&self, rel: &Path) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.open_regular(rel)?.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// Creates the file `rel` with `contents`, and its missing parent directories. Fails when
    /// anything is there already, a symbolic link included (`O_EXCL` never follows one).
    pub(crate) fn create_new(&self, rel: &Path, contents: &[u8]) -> io::Result<()> {
        let (dir, name) = split(rel)?;
        let dir = self.create_dirs(dir)?;
        let flags =
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let mut file = File::from(openat(&dir, name, flags, Mode::from_bits_truncate(0o666))?);
        file.write_all(contents)?;
        file.sync_all()
    }

    /// Opens the directory `rel`, creating it and every missing parent, one component at a time
    /// and none through a link.
    pub(crate) fn create_dirs(&self, rel: &Path) -> io::Result<OwnedFd> {
        let dir_flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let mut dir = openat(&self.root, ".", dir_flags, Mode::empty())?;
        for name in names(rel)? {
            match mkdirat(&dir, name, Mode::from_bits_truncate(0o777)) {
                Ok(()) | Err(Errno::EEXIST) => {}
                Err(e) => return Err(e.into()),
            }
            dir = openat(&dir, name, dir_flags, Mode::empty())?;
        }
        Ok(dir)
    }

    /// Replaces the contents of the regular file `rel` atomically, keeping its permissions: a
    /// temporary file in the same directory, synced, then renamed over it inside the directory's
    /// descriptor. A symbolic link at `rel` is refused, never written through.
    pub(crate) fn replace(&self, rel: &Path, contents: &[u8]) -> io::Result<()> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let (dir, name) = split(rel)?;
        let dir = self.open_dir(dir)?;
        let stat = fstatat(&dir, name, AtFlags::AT_SYMLINK_NOFOLLOW)?;
        if stat.st_mode & libc::S_IFMT != libc::S_IFREG {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file (a symbolic link is never written through)",
            ));
        }
        let tmp = format!(
            ".{}.tunacode-{}-{}.tmp",
            name.to_string_lossy(),
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let flags =
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let mut file = File::from(openat(
            &dir,
            tmp.as_str(),
            flags,
            Mode::from_bits_truncate(0o600),
        )?);
        let written = (|| {
            file.write_all(contents)?;
            file.set_permissions(std::fs::Permissions::from_mode(stat.st_mode & 0o7777))?;
            file.sync_all()?;
            renameat(&dir, tmp.as_str(), &dir, name).map_err(io::Error::from)
        })();
        if written.is_err() {
            let _ = unlinkat(&dir, tmp.as_str(), UnlinkatFlags::NoRemoveDir);
        }
        written
    }

    /// Removes the file `rel`; a symbolic link there is removed itself, never what it points at.
    pub(crate) fn remove(&self, rel: &Path) -> io::Result<()> {
        let (dir, name) = split(rel)?;
        let dir = self.open_dir(dir)?;
        Ok(unlinkat(&dir, name, UnlinkatFlags::NoRemoveDir)?)
    }

    fn open_dir(&self, rel: &Path) -> io::Result<OwnedFd> {
        self.open_at(rel, OFlag::O_RDONLY | OFlag::O_DIRECTORY, Mode::empty())
    }

    /// Opens `rel` beneath the root with no symbolic link followed anywhere on it.
    fn open_at(&self, rel: &Path, flags: OFlag, mode: Mode) -> io::Result<OwnedFd> {
        let rel = if rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            rel
        };
        if OPENAT2.load(Ordering::Relaxed) {
            let how = OpenHow::new()
                .flags(flags | OFlag::O_CLOEXEC)
                .mode(mode)
                .resolve(ResolveFlag::RESOLVE_BENEATH | ResolveFlag::RESOLVE_NO_SYMLINKS);
            match openat2(&self.root, rel, how) {
                Err(Errno::ENOSYS) => OPENAT2.store(false, Ordering::Relaxed),
                // A seccomp profile that refuses the call: the walk below is as strict.
                Err(Errno::EPERM) => {}
                other => return Ok(other?),
            }
        }
        self.open_stepwise(rel, flags, mode)
    }

    /// `open_at` without `openat2`: each directory opened with `O_NOFOLLOW` from the one before.
    fn open_stepwise(&self, rel: &Path, flags: OFlag, mode: Mode) -> io::Result<OwnedFd> {
        let names = names(rel)?;
        let Some((last, dirs)) = names.split_last() else {
            return Ok(openat(&self.root, ".", flags | OFlag::O_CLOEXEC, mode)?);
        };
        let dir_flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let mut dir: Option<OwnedFd> = None;
        for name in dirs {
            let next = openat(
                dir.as_ref().unwrap_or(&self.root),
                *name,
                dir_flags,
                Mode::empty(),
            )?;
            dir = Some(next);
        }
        let at = dir.as_ref().unwrap_or(&self.root);
        Ok(openat(
            at,
            *last,
            flags | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            mode,
        )?)
    }
}

/// The names of `rel`'s components; anything but plain names (`..`, a root) is refused.
fn names(rel: &Path) -> io::Result<Vec<&OsStr>> {
    rel.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| match c {
            Component::Normal(name) => Ok(name),
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the path leaves the workspace",
            )),
        })
        .collect()
}

/// `rel`'s directory and last name.
fn split(rel: &Path) -> io::Result<(&Path, &OsStr)> {
    match (rel.parent(), rel.file_name()) {
        (Some(dir), Some(name)) => Ok((dir, name)),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path names no file",
        )),
    }
}

/// Whether `err` is a refusal to pass through a symbolic link (`ELOOP`) or to leave the root
/// (`EXDEV`, from `RESOLVE_BENEATH`).
pub(crate) fn is_link_refusal(err: &io::Error) -> bool {
    matches!(err.raw_os_error(), Some(libc::ELOOP | libc::EXDEV))
}

#[cfg(test)]
#[path = "beneath_tests.rs"]
mod tests;
