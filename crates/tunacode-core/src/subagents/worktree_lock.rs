//! One writer at a time in a repository's worktree records, in this process and across TunaCode
//! processes.
//!
//! Git does not guard its records of worktrees (`<common git folder>/worktrees/…`) against itself:
//! an `add` reads every other worktree's record, and a `prune` removes one half written. Two
//! writers' adds at once, or one's add beside another's prune, lost a worktree (`failed to read
//! .git/worktrees/…/commondir`). The lock is a mutex for this process's writers and an exclusive
//! `flock` on the common git folder for other processes' (another TunaCode in the same repository).
//! Git itself takes no such lock: a user's own `git worktree prune` is not held off.

use std::fs::File;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg, OFlag};

/// How long a writer waits for another process's writer before going on without the lock (a
/// process stopped while holding it must not stop every other one).
const WAIT_FOR_OTHERS: Duration = Duration::from_secs(10);

/// Held while git writes or prunes its records of worktrees.
pub(super) struct RecordsLock {
    _across_processes: Option<Flock<File>>,
    _in_process: MutexGuard<'static, ()>,
}

/// Locks the worktree records of the repository whose common git folder is `records` (`None`:
/// not known, this process's writers only). Blocking.
pub(super) fn lock_records(records: Option<&Path>) -> RecordsLock {
    static IN_PROCESS: Mutex<()> = Mutex::new(());
    let in_process = IN_PROCESS.lock().unwrap_or_else(|p| p.into_inner());
    let across_processes = records.and_then(|dir| {
        lock_folder(dir)
            .map_err(|e| {
                let dir = dir.display();
                tracing::warn!(error = %e, %dir, "locking the worktree records");
            })
            .ok()
    });
    RecordsLock {
        _across_processes: across_processes,
        _in_process: in_process,
    }
}

/// An exclusive `flock` on `dir`, waited for up to [`WAIT_FOR_OTHERS`].
fn lock_folder(dir: &Path) -> Result<Flock<File>, String> {
    let deadline = Instant::now() + WAIT_FOR_OTHERS;
    // Opened as a folder only: anything else at the path (a FIFO would block the open) is refused.
    let mut folder = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(OFlag::O_DIRECTORY.bits())
        .open(dir)
        .map_err(|e| e.to_string())?;
    loop {
        match Flock::lock(folder, FlockArg::LockExclusiveNonblock) {
            Ok(lock) => return Ok(lock),
            Err((back, Errno::EWOULDBLOCK)) if Instant::now() < deadline => {
                folder = back;
                // flock(2) has no timeout: a short pause between tries, on a blocking thread.
                std::thread::sleep(Duration::from_millis(5));
            }
            Err((_, Errno::EWOULDBLOCK)) => {
                return Err(format!("another process held it for {WAIT_FOR_OTHERS:?}"));
            }
            Err((_, e)) => return Err(e.to_string()),
        }
    }
}
