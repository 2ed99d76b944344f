//! [`Worktree`]: where a writer sub-agent edits, so parallel writers never collide: a git worktree
//! of the parent's repository, checked out at a commit of HEAD plus the parent's uncommitted
//! changes (the untracked files git does not ignore included), made with an index of its own so
//! nothing of the parent's staging changes. When the sub-agent ends, what it changed is read back
//! against that commit ([`Changes`]).
//!
//! The worktree lives in a private folder of the system's temporary directory, not the data dir:
//! the data dir is a secret and protected path for the agent's own tools and sandbox, so a
//! sub-agent could not edit there. Every git call runs with the repository's hooks, fsmonitor and
//! conversions off, in a process group of its own that dies with the agent.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::checkpoint_git::{Stop, run};

/// One sub-agent's worktree.
#[derive(Debug)]
pub(super) struct Worktree {
    /// The parent's repository root.
    repo: PathBuf,
    /// The private folder the worktree is checked out in (removed with it).
    folder: tempfile::TempDir,
    /// The parent's working directory, relative to the repository root.
    sub: PathBuf,
    /// The commit it was checked out at.
    base: String,
}

/// One file a sub-agent changed, relative to the parent's working directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Changed {
    /// The path.
    pub(super) path: PathBuf,
    /// What the file held at the base (`None`: it did not exist).
    pub(super) before: Option<Vec<u8>>,
    /// What it holds now (`None`: deleted).
    pub(super) after: Option<Vec<u8>>,
    /// Whether it is executable now.
    pub(super) executable: bool,
}

/// What a sub-agent changed in its worktree.
#[derive(Debug, Default)]
pub(super) struct Changes {
    /// A unified diff of it all (what the user reviews).
    pub(super) diff: String,
    /// The files under the parent's working directory.
    pub(super) files: Vec<Changed>,
    /// What is never applied, with why: files outside the parent's working directory, links and
    /// anything else that is not a regular file.
    pub(super) not_applied: Vec<String>,
}

/// A git command over `dir` with nothing of the repository's own running.
fn git(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir).args([
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.autocrlf=false",
        "-c",
        "commit.gpgsign=false",
        "-c",
        "gc.auto=0",
        "-c",
        "maintenance.auto=false",
        "-c",
        "submodule.recurse=false",
        "-c",
        "user.name=tunacode",
        "-c",
        "user.email=tunacode@localhost",
    ]);
    cmd
}

/// Runs `cmd` with `args`; its output, or what git said.
fn output(mut cmd: Command, args: &[&str]) -> Result<Vec<u8>, String> {
    cmd.args(args);
    let out = run(cmd, None, &Stop::default()).map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {}: {}",
            args.first().unwrap_or(&""),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8_lossy(&bytes).trim().to_string()
}

impl Worktree {
    /// A worktree of the repository `cwd` is in (`Ok(None)`: `cwd` is not in a git repository with
    /// a commit). Blocking.
    pub(super) fn create(cwd: &Path) -> Result<Option<Worktree>, String> {
        let Ok(root) = output(git(cwd), &["rev-parse", "--show-toplevel"]) else {
            return Ok(None);
        };
        let repo = PathBuf::from(text(root));
        if output(git(&repo), &["rev-parse", "--verify", "-q", "HEAD"]).is_err() {
            return Ok(None);
        }
        let real_cwd = std::fs::canonicalize(cwd).map_err(|e| e.to_string())?;
        let real_repo = std::fs::canonicalize(&repo).map_err(|e| e.to_string())?;
        let sub = real_cwd
            .strip_prefix(&real_repo)
            .map_err(|_| "the working directory is outside its repository".to_string())?
            .to_path_buf();
        let folder = tempfile::Builder::new()
            .prefix("tunacode-worktree-")
            .tempdir()
            .map_err(|e| format!("a folder for the worktree: {e}"))?;
        let base = base_commit(&repo, folder.path())?;
        let checkout = folder.path().join("tree");
        let path = checkout.to_string_lossy().into_owned();
        output(
            git(&repo),
            &["worktree", "add", "--detach", "-q", &path, &base],
        )?;
        Ok(Some(Worktree {
            repo,
            folder,
            sub,
            base,
        }))
    }

    /// The sub-agent's working directory: the parent's, in the worktree.
    pub(super) fn workdir(&self) -> PathBuf {
        self.checkout().join(&self.sub)
    }

    fn checkout(&self) -> PathBuf {
        self.folder.path().join("tree")
    }

    /// What the sub-agent changed since the base. Blocking.
    pub(super) fn changes(&self) -> Result<Changes, String> {
        let tree = self.checkout();
        let index = self.folder.path().join("index");
        let staged = |args: &[&str]| {
            let mut cmd = git(&tree);
            cmd.env("GIT_INDEX_FILE", &index);
            output(cmd, args)
        };
        staged(&["read-tree", &self.base])?;
        staged(&["add", "-A"])?;
        // No external diff program or text conversion of the repository's, ever.
        let diff_of = |how: &[&str]| {
            let mut args = vec![
                "diff",
                "--cached",
                "--no-renames",
                "--no-ext-diff",
                "--no-textconv",
            ];
            args.extend_from_slice(how);
            args.push(&self.base);
            staged(&args)
        };
        let diff = diff_of(&["--no-color"])?;
        let listed = diff_of(&["--name-only", "-z"])?;
        let mut changes = Changes {
            diff: String::from_utf8_lossy(&diff).into_owned(),
            ..Changes::default()
        };
        for name in listed.split(|b| *b == 0).filter(|n| !n.is_empty()) {
            let name = PathBuf::from(String::from_utf8_lossy(name).into_owned());
            let Ok(rel) = name.strip_prefix(&self.sub) else {
                let why = format!("{} (outside the working directory)", name.display());
                changes.not_applied.push(why);
                continue;
            };
            // A name with a line break could read as another path in what the policy judges.
            if name.to_string_lossy().chars().any(char::is_control) {
                let why = format!(
                    "{:?} (a control character in its name)",
                    name.display().to_string()
                );
                changes.not_applied.push(why);
                continue;
            }
            match self.changed(&name, rel)? {
                Some(changed) => changes.files.push(changed),
                None => {
                    let why = format!("{} (not a regular file)", name.display());
                    changes.not_applied.push(why);
                }
            }
        }
        Ok(changes)
    }

    /// File `name` (repository-relative) as it was and is (`None`: it is, or was, not a regular
    /// file: a link, which is never written into the workspace).
    fn changed(&self, name: &Path, rel: &Path) -> Result<Option<Changed>, String> {
        let spec = format!("{}:{}", self.base, name.display());
        let mode = output(
            git(&self.repo),
            &["ls-tree", &self.base, "--", &name.to_string_lossy()],
        )
        .map(text)
        .unwrap_or_default();
        if mode.starts_with("120000") || mode.starts_with("160000") {
            return Ok(None);
        }
        let before = output(git(&self.repo), &["cat-file", "blob", &spec]).ok();
        let now = self.checkout().join(name);
        let after = match std::fs::symlink_metadata(&now) {
            Ok(meta) if meta.is_file() => Some(std::fs::read(&now).map_err(|e| e.to_string())?),
            Ok(_) => return Ok(None),
            Err(_) => None,
        };
        let executable = std::fs::metadata(&now).is_ok_and(|m| {
            use std::os::unix::fs::PermissionsExt;
            m.permissions().mode() & 0o111 != 0
        });
        Ok(Some(Changed {
            path: rel.to_path_buf(),
            before,
            after,
            executable,
        }))
    }

    /// Removes the worktree (and its folder). Blocking.
    pub(super) fn remove(self) {
        let path = self.checkout().to_string_lossy().into_owned();
        if let Err(e) = output(git(&self.repo), &["worktree", "remove", "--force", &path]) {
            tracing::warn!(error = %e, "removing a sub-agent's worktree");
        }
        let _ = output(git(&self.repo), &["worktree", "prune"]);
    }
}

/// A commit of HEAD plus the working tree's changes (tracked and untracked, as `git add -A` sees
/// them), built in an index of its own in `scratch`.
fn base_commit(repo: &Path, scratch: &Path) -> Result<String, String> {
    let index = scratch.join("base-index");
    let staged = |args: &[&str]| {
        let mut cmd = git(repo);
        cmd.env("GIT_INDEX_FILE", &index);
        output(cmd, args).map(text)
    };
    staged(&["read-tree", "HEAD"])?;
    staged(&["add", "-A"])?;
    let tree = staged(&["write-tree"])?;
    let message = "tunacode: the base of a sub-agent's worktree";
    output(
        git(repo),
        &["commit-tree", &tree, "-p", "HEAD", "-m", message],
    )
    .map(text)
}

#[cfg(test)]
#[path = "worktree_tests.rs"]
mod tests;
