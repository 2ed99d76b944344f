//! The shadow store the workspace is recorded in for rewind: before a turn first changes the
//! workspace and after it ends, the whole working tree is recorded in a shadow git store in the data
//! dir (`checkpoints/<project>.git`, never in the user's repository; the user's `.gitignore` files
//! are honoured, files the agent touched are recorded even when ignored, `.git` is never taken, and
//! git keeps every file once by its hash). Snapshots are incremental (git's index remembers what it
//! hashed) and bounded: files over the size cap and the folders the user excludes are recorded by
//! their metadata only (`rewind/snapshot.rs`). Comparing and restoring files is in `rewind/`.
//!
//! The `git` program does the work: it is what every developer machine has, and no crate offers
//! its index and ignore rules for a foreign work tree. All calls block: callers use a blocking thread,
//! and one snapshot or restore runs at a time (a lock: a background snapshot and the next turn's
//! never share the index at once). Each git process dies with the agent and can be stopped with its
//! group (`checkpoint_git.rs`); automatic gc and maintenance are off, so nothing is left running.
//!
//! The store holds copies of every file of the workspace (`.env` included), so it is the user's
//! alone: its folders are 0700 and its files 0600 or 0400 (`core.sharedRepository=0600` for git's own
//! files, umask 077 for the rest), and a store an older version left readable is tightened when it
//! is opened.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

pub use crate::checkpoint_git::Stop;
pub use tunacode_store::RewindConfig;

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

/// The checkpoint store of one working directory.
#[derive(Debug, Clone)]
pub struct Checkpoints {
    pub(crate) git_dir: PathBuf,
    pub(crate) work_tree: PathBuf,
    /// The snapshots' bounds.
    pub(crate) limits: RewindConfig,
    /// Held by each snapshot or restore (they share git's index).
    busy: Arc<Mutex<()>>,
    /// Held while a turn's snapshots are recorded in its node (a rewind waits for it).
    turns: Arc<tokio::sync::Mutex<()>>,
    /// The git program (another only in tests).
    program: PathBuf,
    /// Held while the store is created or checked (a pre-image may come while a snapshot in the
    /// background is still creating it).
    init: Arc<Mutex<()>>,
}

impl Checkpoints {
    /// The store for `cwd` under `data_dir` (`<data>/tunacode`).
    pub fn new(data_dir: &Path, cwd: &Path) -> Self {
        let project = tunacode_store::project_id(cwd);
        Checkpoints {
            git_dir: data_dir.join("checkpoints").join(format!("{project}.git")),
            work_tree: cwd.to_path_buf(),
            limits: RewindConfig::default(),
            busy: Arc::default(),
            turns: Arc::default(),
            program: PathBuf::from("git"),
            init: Arc::default(),
        }
    }

    /// The same store run by another git program (tests hold git inside a command with one).
    #[cfg(test)]
    pub(crate) fn with_git_program(mut self, program: &Path) -> Self {
        self.program = program.to_path_buf();
        self
    }

    /// The same store with the snapshots bounded by `limits`.
    pub fn with_limits(mut self, limits: RewindConfig) -> Self {
        self.limits = limits;
        self
    }

    /// The working directory it records.
    pub fn work_tree(&self) -> &Path {
        &self.work_tree
    }

    /// The lock a turn holds while its snapshots are recorded in its node; a rewind takes it
    /// first, so it always sees the last turn's snapshots.
    pub fn turn_lock(&self) -> Arc<tokio::sync::Mutex<()>> {
        self.turns.clone()
    }

    /// Waits until no other snapshot or restore runs, in this process or another TunaCode's on the
    /// same store; it runs until the guard is dropped. Lock files a killed git left are removed
    /// then (nothing else can be using the store).
    pub(crate) fn exclusive(&self) -> crate::checkpoint_lock::Exclusive<'_> {
        let inner = self.busy.lock().unwrap_or_else(|p| p.into_inner());
        crate::checkpoint_lock::Exclusive::take(inner, &self.git_dir)
    }

    /// The git command for `args` on this store: hooks, gc and maintenance off, private files.
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.program);
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
            // Nothing of the workspace's own runs: no fsmonitor, no submodule's git.
            .args([
                "-c",
                "core.fsmonitor=false",
                "-c",
                "core.untrackedCache=false",
            ])
            .args([
                "-c",
                "submodule.recurse=false",
                "-c",
                "diff.ignoreSubmodules=all",
            ])
            .args(args)
            .current_dir(&self.work_tree)
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_OBJECT_DIRECTORY")
            .env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES")
            .env_remove("GIT_CONFIG_PARAMETERS")
            .env_remove("GIT_CONFIG_COUNT")
            .env_remove("GIT_COMMON_DIR")
            .env_remove("GIT_NAMESPACE")
            // Paths are names, never patterns (a file called `*` is that file).
            .env("GIT_LITERAL_PATHSPECS", "1");
        // The user's files are only ever written by TunaCode itself (`rewind/apply.rs`).
        tunacode_tools::process_guard::private_umask(&mut cmd);
        cmd
    }

    pub(crate) fn git(&self, args: &[&str]) -> Result<String, CheckpointError> {
        self.git_until(args, None, &Stop::default())
    }

    /// Runs git with `input` on its standard input.
    pub(crate) fn git_with(
        &self,
        args: &[&str],
        input: Vec<u8>,
    ) -> Result<String, CheckpointError> {
        self.git_until(args, Some(input), &Stop::default())
    }

    pub(crate) fn git_until(
        &self,
        args: &[&str],
        input: Option<Vec<u8>>,
        stop: &Stop,
    ) -> Result<String, CheckpointError> {
        let out = self.git_bytes(args, input, stop)?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// Runs git on the index file `index` instead of the store's own.
    pub(crate) fn git_on_index(
        &self,
        index: &Path,
        args: &[&str],
        input: Option<Vec<u8>>,
    ) -> Result<String, CheckpointError> {
        let mut cmd = self.command(args);
        cmd.env("GIT_INDEX_FILE", index);
        let out = crate::checkpoint_git::run(cmd, input, &Stop::default())
            .map_err(|e| CheckpointError::Git(format!("cannot run git: {e}")))?;
        if !out.status.success() {
            return Err(CheckpointError::Git(format!(
                "git {}: {}",
                args.first().unwrap_or(&""),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Runs git; what it printed, as bytes.
    pub(crate) fn git_raw(&self, args: &[&str]) -> Result<Vec<u8>, CheckpointError> {
        self.git_bytes(args, None, &Stop::default())
    }

    fn git_bytes(
        &self,
        args: &[&str],
        input: Option<Vec<u8>>,
        stop: &Stop,
    ) -> Result<Vec<u8>, CheckpointError> {
        if stop.is_stopped() {
            return Err(CheckpointError::Stopped);
        }
        let out = crate::checkpoint_git::run(self.command(args), input, stop)
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
        Ok(out.stdout)
    }

    /// Creates the store, or makes an existing one private (tightening what an older version left
    /// readable).
    pub(crate) fn ensure_store(&self) -> Result<(), CheckpointError> {
        let _alone = self.init.lock().unwrap_or_else(|p| p.into_inner());
        let io = |path: &Path, e: std::io::Error| {
            CheckpointError::Git(format!("{}: {e}", path.display()))
        };
        if let Some(parent) = self.git_dir.parent() {
            tunacode_store::private_dir(parent).map_err(|e| io(parent, e))?;
        }
        tunacode_store::private_tree(&self.git_dir).map_err(|e| io(&self.git_dir, e))?;
        if !self.git_dir.join("HEAD").exists() {
            self.git(&["init", "-q"])?;
        }
        crate::checkpoint_lock::plain_attributes(&self.git_dir)
            .map_err(|e| io(&self.git_dir.join("info/attributes"), e))
    }
}

#[cfg(test)]
#[path = "checkpoints_tests.rs"]
mod tests;
