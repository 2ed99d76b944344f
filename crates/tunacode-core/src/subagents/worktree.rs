//! [`Worktree`]: where a writer sub-agent edits, so parallel writers never collide: a git worktree
//! of the parent's repository, checked out at a commit of HEAD plus the parent's uncommitted
//! changes (the untracked files git does not ignore included, secret files left out), made with an
//! index of its own so nothing of the parent's staging changes. When the sub-agent ends, what it
//! changed is read back by comparing the worktree's bytes with the base's ([`Changes`]): no git
//! runs in the worktree after the sub-agent could touch it (its `.git` file, its attributes).
//!
//! The worktree lives in a private folder of the system's temporary directory, not the data dir:
//! the data dir is a secret and protected path for the agent's own tools and sandbox, so a
//! sub-agent could not edit there. Git runs (in the parent's repository only) without the user's
//! global or system config, without any `GIT_*` variable of the agent's, with the repository's
//! hooks, fsmonitor and in-tree attributes off (no filter, no conversion: bytes go in and out as
//! they are), in a process group of its own that dies with the agent. A repository that holds the
//! home directory gets no worktree (its untracked files would be the whole home).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use tunacode_tools::SecretPaths;

use super::worktree_lock::lock_records;
use super::worktree_walk::{Found, Stamp, files, stamp};
use crate::checkpoint_git::{Stop, run};

/// Git's empty tree: as the attribute source, no `.gitattributes` of the repository applies.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// One sub-agent's worktree.
#[derive(Debug)]
pub(super) struct Worktree {
    /// The parent's repository root.
    repo: PathBuf,
    /// The private folder the worktree is checked out in (removed with it).
    folder: tempfile::TempDir,
    /// The parent's working directory, relative to the repository root.
    sub: PathBuf,
    /// The base's files: repository-relative path → (mode, object id).
    base: BTreeMap<PathBuf, (String, String)>,
    /// The base's files as checked out, to tell the untouched ones without reading them.
    stamps: BTreeMap<PathBuf, Stamp>,
    /// The repository's common git folder, whose worktree records are locked (`None`: unknown).
    records: Option<PathBuf>,
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
    /// A unified diff of the files offered, made from the bytes that would be written.
    pub(super) diff: String,
    /// The files under the parent's working directory.
    pub(super) files: Vec<Changed>,
    /// What is never applied, with why: files outside the parent's working directory, links and
    /// anything else that is not a regular file, names with control characters or not UTF-8.
    pub(super) not_applied: Vec<String>,
}

/// A git command in the repository `dir`, with nothing of the repository's, the user's or the
/// agent's environment's own running.
fn git(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("GIT_") {
            cmd.env_remove(key);
        }
    }
    cmd.current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_ATTR_SOURCE", EMPTY_TREE)
        .env("GIT_LITERAL_PATHSPECS", "1")
        .args([
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "core.fsmonitor=false",
        ])
        .args(["-c", "core.autocrlf=false", "-c", "commit.gpgsign=false"])
        .args(["-c", "gc.auto=0", "-c", "maintenance.auto=false"])
        .args(["-c", "submodule.recurse=false"])
        .args([
            "-c",
            "user.name=tunacode",
            "-c",
            "user.email=tunacode@localhost",
        ]);
    cmd
}

/// Runs `cmd` with `args` (and `input` on its standard input); its output, or what git said.
fn output(mut cmd: Command, args: &[&str], input: Option<Vec<u8>>) -> Result<Vec<u8>, String> {
    cmd.args(args);
    let out = run(cmd, input, &Stop::default()).map_err(|e| format!("cannot run git: {e}"))?;
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
    /// A worktree of the repository `cwd` is in, leaving out what `secrets` names (`Ok(None)`:
    /// `cwd` is not in a git repository with a commit, or the repository holds the home
    /// directory). Blocking.
    pub(super) fn create(cwd: &Path, secrets: &SecretPaths) -> Result<Option<Worktree>, String> {
        let Ok(root) = output(git(cwd), &["rev-parse", "--show-toplevel"], None) else {
            return Ok(None);
        };
        let repo = std::fs::canonicalize(text(root)).map_err(|e| e.to_string())?;
        if output(git(&repo), &["rev-parse", "--verify", "-q", "HEAD"], None).is_err() {
            return Ok(None);
        }
        let home = std::env::var_os("HOME").and_then(|h| std::fs::canonicalize(h).ok());
        if home.is_some_and(|home| home.starts_with(&repo)) {
            return Ok(None);
        }
        let real_cwd = std::fs::canonicalize(cwd).map_err(|e| e.to_string())?;
        let sub = real_cwd
            .strip_prefix(&repo)
            .map_err(|_| "the working directory is outside its repository".to_string())?
            .to_path_buf();
        let folder = tempfile::Builder::new()
            .prefix("tunacode-worktree-")
            .tempdir()
            .map_err(|e| format!("a folder for the worktree: {e}"))?;
        let commit = base_commit(&repo, folder.path(), secrets)?;
        let base = listing(&repo, &commit)?;
        let tree = checkout_in(folder.path());
        let path = tree.to_string_lossy().into_owned();
        let add = [
            "worktree",
            "add",
            "--detach",
            "--no-checkout",
            "-q",
            &path,
            &commit,
        ];
        let records = records_of(&repo);
        {
            let _one_at_a_time = lock_records(records.as_deref());
            output(git(&repo), &add, None)?;
        }
        // Checked out after the records are written, so one writer's checkout of a big repository
        // does not hold up the others'.
        output(git(&tree), &["reset", "--hard", "-q"], None)?;
        let stamps = base
            .keys()
            .filter_map(|name| Some((name.clone(), stamp(&tree.join(name))?)))
            .collect();
        Ok(Some(Worktree {
            repo,
            folder,
            sub,
            base,
            stamps,
            records,
        }))
    }

    /// The sub-agent's working directory: the parent's, in the worktree.
    pub(super) fn workdir(&self) -> PathBuf {
        self.checkout().join(&self.sub)
    }

    fn checkout(&self) -> PathBuf {
        checkout_in(self.folder.path())
    }

    /// What the sub-agent changed since the base, read from the bytes. Blocking.
    pub(super) fn changes(&self) -> Result<Changes, String> {
        let tree = self.checkout();
        let mut names: BTreeSet<PathBuf> = self
            .base
            .iter()
            .filter(|(_, (mode, _))| mode != "160000")
            .map(|(path, _)| path.clone())
            .collect();
        names.extend(files(&tree));
        names.retain(|name| {
            let checked_out = self.stamps.get(name);
            checked_out.is_none() || checked_out.copied() != stamp(&tree.join(name))
        });
        let ids: Vec<&str> = names
            .iter()
            .filter_map(|name| self.base.get(name).map(|(_, id)| id.as_str()))
            .collect();
        let blobs = blobs(&self.repo, &ids)?;
        let mut changes = Changes::default();
        for name in names {
            self.compare(&name, &blobs, &mut changes);
        }
        Ok(changes)
    }

    /// Adds `name` (repository-relative) to `changes` when it changed.
    fn compare(&self, name: &Path, blobs: &BTreeMap<String, Vec<u8>>, changes: &mut Changes) {
        let now = Found::read(&self.checkout(), name);
        let before = match self.base.get(name) {
            None => Found::Missing,
            Some((mode, id)) => {
                let bytes = blobs.get(id).cloned().unwrap_or_default();
                Found::from_base(mode, bytes)
            }
        };
        if now == before {
            return;
        }
        let shown = name.display().to_string();
        let not_applied = |why: &str| format!("{shown} ({why})");
        let rel = name.strip_prefix(&self.sub);
        let refusal = match (&rel, before.bytes(), now.bytes()) {
            (Err(_), _, _) => Some("outside the working directory"),
            _ if name.to_str().is_none() => Some("a name that is not UTF-8"),
            _ if shown.chars().any(char::is_control) => Some("a control character in its name"),
            (_, Err(()), _) | (_, _, Err(())) => Some("not a regular file"),
            _ => None,
        };
        if let Some(why) = refusal {
            changes.not_applied.push(not_applied(why));
            return;
        }
        let (Ok(rel), Ok(old), Ok(new)) = (rel, before.bytes(), now.bytes()) else {
            return;
        };
        changes.diff.push_str(&diff_of(name, old, new));
        changes.files.push(Changed {
            path: rel.to_path_buf(),
            before: old.map(<[u8]>::to_vec),
            after: new.map(<[u8]>::to_vec),
            executable: now.executable(),
        });
    }

    /// Removes the worktree (its folder, then git's record of it). Blocking.
    pub(super) fn remove(self) {
        let Worktree {
            repo,
            folder,
            records,
            ..
        } = self;
        if let Err(e) = folder.close() {
            tracing::warn!(error = %e, "removing a sub-agent's worktree");
        }
        let _one_at_a_time = lock_records(records.as_deref());
        if let Err(e) = output(git(&repo), &["worktree", "prune"], None) {
            tracing::warn!(error = %e, "pruning a sub-agent's worktree");
        }
    }
}

/// The unified diff of one file from `old` to `new` (`None`: absent), as the user reviews it.
fn diff_of(name: &Path, old: Option<&[u8]>, new: Option<&[u8]>) -> String {
    let shown = name.display();
    let (a, b) = (format!("a/{shown}"), format!("b/{shown}"));
    match (as_text(old), as_text(new)) {
        (Some(old_text), Some(new_text)) => {
            let from = if old.is_some() { a } else { "/dev/null".into() };
            let to = if new.is_some() { b } else { "/dev/null".into() };
            tunacode_tools::unified_diff(old_text, new_text, &from, &to)
        }
        _ => format!(
            "Binary file {shown}: {} bytes before, {} after\n",
            old.map_or(0, <[u8]>::len),
            new.map_or(0, <[u8]>::len)
        ),
    }
}

/// A file's text (`Some("")` when absent; `None` when it is not UTF-8).
fn as_text(bytes: Option<&[u8]>) -> Option<&str> {
    match bytes {
        None => Some(""),
        Some(bytes) => std::str::from_utf8(bytes).ok(),
    }
}

/// A commit of HEAD plus the working tree's changes (tracked and untracked, as `git add -A` sees
/// them, secret files left out), built in an index of its own in `scratch`.
fn base_commit(repo: &Path, scratch: &Path, secrets: &SecretPaths) -> Result<String, String> {
    let index = scratch.join("base-index");
    let staged = |args: &[&str], input: Option<Vec<u8>>| {
        let mut cmd = git(repo);
        cmd.env("GIT_INDEX_FILE", &index);
        output(cmd, args, input)
    };
    // From a copy of the repository's own index, so `add` hashes only what changed since git last
    // looked (its stat cache); when there is none or git cannot use the copy, from HEAD.
    let own = text(output(
        git(repo),
        &["rev-parse", "--git-path", "index"],
        None,
    )?);
    let copied = std::fs::copy(repo.join(&own), &index).is_ok();
    if !copied || staged(&["add", "-A"], None).is_err() {
        staged(&["read-tree", "HEAD"], None)?;
        staged(&["add", "-A"], None)?;
    }
    let listed = staged(&["ls-files", "-z"], None)?;
    let secret: Vec<u8> = listed
        .split(|b| *b == 0)
        .filter(|n| !n.is_empty())
        .filter(|n| secrets.reason_for(&repo.join(path_of(n))).is_some())
        .flat_map(|n| n.iter().copied().chain([0]))
        .collect();
    if !secret.is_empty() {
        let rm = [
            "rm",
            "--cached",
            "-q",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
        ];
        staged(&rm, Some(secret))?;
    }
    let tree = text(staged(&["write-tree"], None)?);
    let message = "tunacode: the base of a sub-agent's worktree";
    let commit = ["commit-tree", &tree, "-p", "HEAD", "-m", message];
    output(git(repo), &commit, None).map(text)
}

/// The bytes of the blobs `ids`, read by one `git cat-file --batch`.
fn blobs(repo: &Path, ids: &[&str]) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut found = BTreeMap::new();
    if ids.is_empty() {
        return Ok(found);
    }
    let input: Vec<u8> = ids
        .iter()
        .flat_map(|id| format!("{id}\n").into_bytes())
        .collect();
    let out = output(git(repo), &["cat-file", "--batch"], Some(input))?;
    let mut rest = out.as_slice();
    while let Some(end) = rest.iter().position(|b| *b == b'\n') {
        let header = String::from_utf8_lossy(&rest[..end]).into_owned();
        let mut words = header.split(' ');
        let (Some(id), Some(_kind), Some(size)) = (words.next(), words.next(), words.next()) else {
            return Err(format!("git cat-file said `{header}`"));
        };
        let size: usize = size
            .parse()
            .map_err(|_| format!("git cat-file said `{header}`"))?;
        let body = rest
            .get(end + 1..end + 1 + size)
            .ok_or("git cat-file was cut short")?;
        found.insert(id.to_string(), body.to_vec());
        rest = rest.get(end + 2 + size..).unwrap_or_default();
    }
    Ok(found)
}

/// A path as git printed it (raw bytes: names need not be UTF-8).
fn path_of(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

/// The files of `commit`: path → (mode, object id).
fn listing(repo: &Path, commit: &str) -> Result<BTreeMap<PathBuf, (String, String)>, String> {
    let listed = output(
        git(repo),
        &["ls-tree", "-r", "-z", "--full-tree", commit],
        None,
    )?;
    let mut files = BTreeMap::new();
    for entry in listed.split(|b| *b == 0).filter(|e| !e.is_empty()) {
        let Some(tab) = entry.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let meta = String::from_utf8_lossy(&entry[..tab]);
        let mut meta = meta.split(' ');
        let (Some(mode), Some(_kind), Some(id)) = (meta.next(), meta.next(), meta.next()) else {
            continue;
        };
        files.insert(
            path_of(&entry[tab + 1..]),
            (mode.to_string(), id.to_string()),
        );
    }
    Ok(files)
}

/// The common git folder of `repo`, which holds its worktree records (`None`: git did not say).
fn records_of(repo: &Path) -> Option<PathBuf> {
    let args = ["rev-parse", "--path-format=absolute", "--git-common-dir"];
    output(git(repo), &args, None)
        .ok()
        .map(|dir| PathBuf::from(text(dir)))
}

/// Where a worktree is checked out in its folder: a directory named as the (unique) folder, since git
/// names a worktree's records (`.git/worktrees/<name>`) after the checkout's last component, and two
/// writers adding `…/tree` at once raced for `.git/worktrees/tree` (one of them lost its worktree).
fn checkout_in(folder: &Path) -> PathBuf {
    folder.join(folder.file_name().unwrap_or(std::ffi::OsStr::new("tree")))
}

#[cfg(test)]
#[path = "worktree_tests.rs"]
mod tests;
