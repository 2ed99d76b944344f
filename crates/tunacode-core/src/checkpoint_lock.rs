//! What keeps the shadow store sound when several writers and a hostile workspace meet it: one
//! snapshot or restore at a time across processes (an advisory lock beside the store, so a
//! `tunacode rewind` and a running TUI never share git's index at once; lock files a killed git
//! left are removed while it is held), and attributes that turn off every filter and conversion,
//! so a repository's `.gitattributes` can neither run a filter driver nor make a restored file
//! differ from the bytes that were recorded.

use std::fs::File;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::MutexGuard;

use nix::fcntl::{Flock, FlockArg};

/// The attributes of every path in the store: no text conversion, no filters, bytes as they are.
const PLAIN: &str = "* -text -eol -filter -ident -working-tree-encoding -diff -merge\n";

/// Held while a snapshot or restore runs.
pub(crate) struct Exclusive<'a> {
    _inner: MutexGuard<'a, ()>,
    _file: Option<Flock<File>>,
}

impl<'a> Exclusive<'a> {
    /// Takes the store's lock (after this process's own, `inner`), then clears stale lock files.
    /// Without a lock file (its folder cannot be made) the in-process lock alone holds.
    pub(crate) fn take(inner: MutexGuard<'a, ()>, git_dir: &Path) -> Self {
        let file = lock_file(git_dir).and_then(|path| {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .mode(0o600)
                .open(path)
                .ok()?;
            Flock::lock(file, FlockArg::LockExclusive).ok()
        });
        if file.is_some() {
            clear_stale_locks(git_dir);
        }
        Exclusive {
            _inner: inner,
            _file: file,
        }
    }
}

/// `<store>.lock` beside the store (its folder made private first).
fn lock_file(git_dir: &Path) -> Option<PathBuf> {
    let parent = git_dir.parent()?;
    tunacode_store::private_dir(parent).ok()?;
    let name = git_dir.file_name()?.to_string_lossy().into_owned();
    Some(parent.join(format!("{name}.lock")))
}

/// How old a lock file must be to be taken for one a killed git left (a git at work keeps its
/// lock for moments; one of another TunaCode that does not take this lock, an older version, may
/// still be writing).
const STALE: std::time::Duration = std::time::Duration::from_secs(600);

/// Removes the lock files a killed git left (the index's, HEAD's, the refs').
fn clear_stale_locks(git_dir: &Path) {
    let dirs = [
        git_dir.to_path_buf(),
        git_dir.join("refs/heads"),
        git_dir.join("refs/tunacode"),
    ];
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let stale = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > STALE);
            if stale && entry.file_name().to_string_lossy().ends_with(".lock") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Writes the store's `info/attributes` (they take precedence over the workspace's files).
pub(crate) fn plain_attributes(git_dir: &Path) -> io::Result<()> {
    let info = git_dir.join("info");
    let file = info.join("attributes");
    if std::fs::read_to_string(&file).is_ok_and(|t| t == PLAIN) {
        return Ok(());
    }
    tunacode_store::private_dir(&info)?;
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .mode(0o600)
        .open(file)?;
    std::io::Write::write_all(&mut out, PLAIN.as_bytes())
}
