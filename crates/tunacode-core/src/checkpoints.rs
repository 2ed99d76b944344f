//! Checkpoints for undo: before the agent's first change to the workspace in a request, the whole
//! working tree is recorded in a shadow git store in the data dir (`checkpoints/<project>.git`, never
//! in the user's repository; the user's `.gitignore` files are honoured, `.git` is never taken, and
//! git keeps every file once by its hash, large and binary ones included). Undo compares a checkpoint
//! with the tree as it is now and puts back what changed since, whether a file tool or a command
//! changed it: changed and deleted files get their old content, new files are removed.
//!
//! The `git` program does the work: it is what every developer machine has, and no crate offers
//! its index and ignore rules for a foreign work tree. All calls block: callers use a blocking thread.
//! Each git process dies with the agent and can be stopped with its group (`checkpoint_git.rs`);
//! automatic gc and maintenance are off, so nothing is left running in the background.
//!
//! The store holds copies of every file of the workspace (`.env` included), so it is the user's
//! alone: its folders are 0700 and its files 0600 or 0400 (`core.sharedRepository=0600` for git's own
//! files, umask 077 for the rest; not for `checkout`, which writes the user's files), and a store an
//! older version left readable is tightened when it is opened.

use std::path::{Path, PathBuf};
use std::process::Command;

pub use crate::checkpoint_git::Stop;

/// Why a checkpoint could not be taken or restored.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// `git` is missing or failed.
    #[error("checkpoints need git: {0}")]
    Git(String),
    /// There is nothing to undo.
    #[error("{0}")]
    Nothing(String),
    /// It was stopped (its request was cancelled).
    #[error("the checkpoint was stopped")]
    Stopped,
}

/// One checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    /// Its commit in the shadow store.
    pub id: String,
    /// The request it was taken before.
    pub request_id: String,
    /// When (seconds since the epoch).
    pub time: i64,
}

/// What undo did to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    /// The path, relative to the working directory.
    pub path: String,
    /// `restored` (content put back), `recreated` (it had been deleted), `removed` (it was new).
    pub how: &'static str,
}

/// The checkpoint store of one working directory.
#[derive(Debug, Clone)]
pub struct Checkpoints {
    pub(crate) git_dir: PathBuf,
    work_tree: PathBuf,
}

const SESSION_TRAILER: &str = "Session:";
const REQUEST_TRAILER: &str = "Request:";

impl Checkpoints {
    /// The store for `cwd` under `data_dir` (`<data>/tunacode`).
    pub fn new(data_dir: &Path, cwd: &Path) -> Self {
        let project = tunacode_store::project_id(cwd);
        Checkpoints {
            git_dir: data_dir.join("checkpoints").join(format!("{project}.git")),
            work_tree: cwd.to_path_buf(),
        }
    }

    /// The git command for `args` on this store: hooks, gc and maintenance off, private files.
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("git");
        cmd.arg("--git-dir")
            .arg(&self.git_dir)
            .arg("--work-tree")
            .arg(&self.work_tree)
            .args([
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "core.autocrlf=false",
            ])
            .args([
                "-c",
                "user.name=tunacode",
                "-c",
                "user.email=tunacode@localhost",
            ])
            .args(["-c", "commit.gpgsign=false", "-c", "core.quotepath=false"])
            .args(["-c", "core.sharedRepository=0600"])
            .args(["-c", "gc.auto=0", "-c", "maintenance.auto=false"])
            .args(args)
            .current_dir(&self.work_tree)
            .env_remove("GIT_INDEX_FILE");
        if args.first() != Some(&"checkout") {
            // `checkout` writes the user's files, which keep the user's umask.
            tunacode_tools::process_guard::private_umask(&mut cmd);
        }
        cmd
    }

    fn git(&self, args: &[&str]) -> Result<String, CheckpointError> {
        self.git_until(args, &Stop::default())
    }

    fn git_until(&self, args: &[&str], stop: &Stop) -> Result<String, CheckpointError> {
        if stop.is_stopped() {
            return Err(CheckpointError::Stopped);
        }
        let out = crate::checkpoint_git::run(self.command(args), stop)
            .map_err(|e| CheckpointError::Git(format!("cannot run git: {e}")))?;
        if stop.is_stopped() {
            return Err(CheckpointError::Stopped);
        }
        if !out.status.success() {
            return Err(CheckpointError::Git(format!(
                "git {}: {}",
                args.first().unwrap_or(&""),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Creates the store, or makes an existing one private (tightening what an older version left
    /// readable).
    fn ensure_store(&self) -> Result<(), CheckpointError> {
        let io = |path: &Path, e: std::io::Error| {
            CheckpointError::Git(format!("{}: {e}", path.display()))
        };
        if let Some(parent) = self.git_dir.parent() {
            tunacode_store::private_dir(parent).map_err(|e| io(parent, e))?;
        }
        tunacode_store::private_tree(&self.git_dir).map_err(|e| io(&self.git_dir, e))?;
        if self.git_dir.join("HEAD").exists() {
            return Ok(());
        }
        self.git(&["init", "-q"])?;
        Ok(())
    }

    /// Records the working tree before a request of `session` changes it; the checkpoint's id.
    /// `stop` kills it midway (then [`CheckpointError::Stopped`]).
    pub fn take(
        &self,
        session_id: &str,
        request_id: &str,
        stop: &Stop,
    ) -> Result<String, CheckpointError> {
        self.ensure_store()?;
        self.git_until(&["add", "-A", "--", "."], stop)?;
        let message = format!(
            "Before request {request_id}\n\n{SESSION_TRAILER} {session_id}\n{REQUEST_TRAILER} {request_id}"
        );
        let commit = [
            "commit",
            "-q",
            "--allow-empty",
            "--no-verify",
            "-m",
            &message,
        ];
        self.git_until(&commit, stop)?;
        Ok(self
            .git_until(&["rev-parse", "HEAD"], stop)?
            .trim()
            .to_string())
    }

    /// The checkpoints of `session`, newest first.
    pub fn list(&self, session_id: &str) -> Result<Vec<Checkpoint>, CheckpointError> {
        if !self.git_dir.join("HEAD").exists() {
            return Ok(Vec::new());
        }
        let grep = format!("--grep=^{SESSION_TRAILER} {session_id}$");
        let log = match self.git(&["log", "--format=%H%x00%ct%x00%B%x1e", &grep]) {
            Ok(log) => log,
            // A store without commits yet.
            Err(_) => return Ok(Vec::new()),
        };
        Ok(log
            .split('\u{1e}')
            .filter_map(|entry| {
                let mut fields = entry.trim().splitn(3, '\0');
                let id = fields.next()?.to_string();
                let time = fields.next()?.parse().ok()?;
                let body = fields.next()?;
                let request_id = body
                    .lines()
                    .find_map(|l| l.strip_prefix(REQUEST_TRAILER))?
                    .trim()
                    .to_string();
                Some(Checkpoint {
                    id,
                    request_id,
                    time,
                })
            })
            .collect())
    }

    /// Puts the working tree back as it was at `checkpoint` for every file that changed since.
    pub fn restore(&self, checkpoint: &str) -> Result<Vec<Restored>, CheckpointError> {
        self.ensure_store()?;
        self.git(&["add", "-A", "--", "."])?;
        let now = self.git(&["write-tree"])?.trim().to_string();
        let changes = self.git(&[
            "diff-tree",
            "-r",
            "--no-renames",
            "--name-status",
            "-z",
            checkpoint,
            &now,
        ])?;
        let mut fields = changes.split('\0').filter(|f| !f.is_empty());
        let mut restored = Vec::new();
        while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
            let how = match status {
                "A" => {
                    let file = self.work_tree.join(path);
                    std::fs::remove_file(&file)
                        .map_err(|e| CheckpointError::Git(format!("{}: {e}", file.display())))?;
                    "removed"
                }
                "D" => "recreated",
                _ => "restored",
            };
            if how != "removed" {
                self.git(&["checkout", checkpoint, "--", path])?;
            }
            restored.push(Restored {
                path: path.to_string(),
                how,
            });
        }
        // The index follows the tree again, so the next checkpoint starts from here.
        self.git(&["add", "-A", "--", "."])?;
        Ok(restored)
    }

    /// Undoes the changes made since the `to`-th newest checkpoint of `session` (1: the last request's).
    pub fn undo(
        &self,
        session_id: &str,
        to: usize,
    ) -> Result<(Checkpoint, Vec<Restored>), CheckpointError> {
        let list = self.list(session_id)?;
        let Some(checkpoint) = list.get(to.saturating_sub(1)).cloned() else {
            return Err(CheckpointError::Nothing(match list.len() {
                0 => {
                    format!("session {session_id} has no checkpoint: the agent changed nothing yet")
                }
                n => format!("session {session_id} has {n} checkpoint(s), not {to}"),
            }));
        };
        let restored = self.restore(&checkpoint.id)?;
        Ok((checkpoint, restored))
    }
}

#[cfg(test)]
#[path = "checkpoints_tests.rs"]
mod tests;
