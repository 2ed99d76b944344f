//! The check after a sandboxed command: a protected path it created or changed (a new `.mcp.json` or
//! `AGENTS.md`, a hook in a `.git/hooks` that had none — the read-only binds cover only what existed,
//! and without namespaces nothing does) is set aside under a name nothing reads
//! (`<name>.tunacode-blocked-<time>`) and named to the model. Every process of the command has ended
//! by then (the launch's reaper), so nothing can change it back.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::protected::ProtectedPaths;

/// At most this many entries are remembered under one protected directory; a directory with more
/// (before or after) is judged whole: changed at all, it is set aside.
const MAX_ENTRIES: usize = 5_000;

/// What a file looked like: its type, size, change time and inode, or a link's target.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fingerprint {
    kind: u32,
    len: u64,
    ctime: (i64, i64),
    inode: u64,
    link: Option<PathBuf>,
}

fn fingerprint(path: &Path) -> Option<Fingerprint> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path).ok()?;
    Some(Fingerprint {
        kind: meta.mode() & libc::S_IFMT,
        len: meta.len(),
        ctime: (meta.ctime(), meta.ctime_nsec()),
        inode: meta.ino(),
        link: std::fs::read_link(path).ok(),
    })
}

/// The protected paths as they were before a command.
#[derive(Debug, Default)]
pub(crate) struct ProtectedSnapshot {
    files: BTreeMap<PathBuf, Fingerprint>,
    targets: Vec<PathBuf>,
    protected: ProtectedPaths,
    /// The roots' `.git` that existed before (a new one is a repository the command created).
    repos: Vec<PathBuf>,
    /// Protected directories too big to remember entry by entry.
    partial: Vec<PathBuf>,
}

impl ProtectedSnapshot {
    /// Records every protected path (and what is under a protected directory).
    pub(crate) fn take(protected: &ProtectedPaths) -> Self {
        let targets = protected.sandbox_targets();
        let mut files = BTreeMap::new();
        let mut partial = Vec::new();
        for target in &targets {
            record(target, &mut files, &mut partial);
        }
        let repos = protected
            .roots()
            .iter()
            .map(|root| root.join(".git"))
            .filter(|git| git.exists())
            .collect();
        ProtectedSnapshot {
            files,
            targets,
            protected: protected.clone(),
            repos,
            partial,
        }
    }

    /// Sets aside what the command created or changed; returns one line per path set aside.
    pub(crate) fn settle(&self) -> Vec<String> {
        // The targets again: a new entry in `.git` (`commondir`) or a `.git` that became a file is
        // one only now.
        let mut targets = self.protected.sandbox_targets();
        targets.extend(self.targets.iter().cloned());
        targets.sort();
        targets.dedup();
        let mut now = BTreeMap::new();
        let mut partial = self.partial.clone();
        for target in &targets {
            record(target, &mut now, &mut partial);
        }
        let stamp = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut lines = Vec::new();
        for (path, print) in &now {
            let before = self.files.get(path);
            let kept_dir = print.kind == libc::S_IFDIR
                && before.is_some_and(|b| b.kind == libc::S_IFDIR)
                && !(partial.contains(path) && before != Some(print));
            if kept_dir
                || before == Some(print)
                || self.covered(path, &now)
                || self.fresh_repo(path)
            {
                continue;
            }
            lines.push(set_aside(path, stamp));
        }
        for path in self.files.keys().filter(|p| !now.contains_key(*p)) {
            if !self
                .files
                .keys()
                .any(|q| q != path && path.starts_with(q) && !now.contains_key(q))
            {
                lines.push(format!("{} was removed", path.display()));
            }
        }
        lines
    }

    /// Whether `path` goes with a changed parent that is set aside whole.
    fn covered(&self, path: &Path, now: &BTreeMap<PathBuf, Fingerprint>) -> bool {
        path.ancestors().skip(1).any(|parent| {
            now.contains_key(parent)
                && !self.files.contains_key(parent)
                && !self.is_git_part(parent)
        })
    }

    /// `.git/config` and the like in a repository the command created (`git init`): only hooks that
    /// would run are set aside there.
    fn fresh_repo(&self, path: &Path) -> bool {
        // Strictly inside: a `.git` file that points elsewhere is never part of a new repository.
        let Some(git) = path
            .ancestors()
            .skip(1)
            .find(|a| a.file_name().is_some_and(|n| n == ".git"))
        else {
            return false;
        };
        // Inside an existing repository a new `.git` takes it over for that folder: not fresh.
        if !self.repos.is_empty() || self.files.keys().any(|p| p.starts_with(git)) {
            return false;
        }
        let is_hook = path.parent().is_some_and(|p| p.ends_with(".git/hooks"));
        !is_hook || path.extension().is_some_and(|e| e == "sample")
    }

    fn is_git_part(&self, path: &Path) -> bool {
        path.parent()
            .is_some_and(|p| p.file_name().is_some_and(|n| n == ".git"))
    }
}

/// Renames `path` to a name nothing reads, unguessable so the command cannot have taken it first;
/// when that fails, removes it. Returns the line that says what happened.
fn set_aside(path: &Path, stamp: u64) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let aside = path.with_file_name(format!(
        "{name}.tunacode-blocked-{stamp}-{:08x}",
        fastrand::u32(..)
    ));
    // A parent the command made read-only is made writable again for the user first.
    if let Some(parent) = path.parent() {
        let _ = make_writable(parent);
    }
    if std::fs::symlink_metadata(&aside).is_err() && std::fs::rename(path, &aside).is_ok() {
        return format!("{} → {}", path.display(), aside.display());
    }
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        writable_tree(path);
    }
    let is_dir = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
    let removed = if is_dir {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    };
    match removed {
        Ok(()) => format!("{} (removed: it could not be renamed)", path.display()),
        Err(e) => format!(
            "{} (could not be set aside or removed: {e})",
            path.display()
        ),
    }
}

/// Records `path` and (a directory) what is under it; a directory too big to walk whole goes in
/// `partial`.
/// Adds the owner's write and search bits to `dir` (a link is left alone).
fn make_writable(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(dir)?;
    if !meta.is_dir() {
        return Ok(());
    }
    let mode = meta.permissions().mode();
    if mode & 0o300 != 0o300 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode | 0o700))?;
    }
    Ok(())
}

/// Makes every directory under `dir` removable (bounded by the walk budget).
fn writable_tree(dir: &Path) {
    let mut stack = vec![dir.to_path_buf()];
    let mut budget = MAX_ENTRIES;
    while let Some(next) = stack.pop() {
        let _ = make_writable(&next);
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries.flatten() {
            if budget == 0 {
                return;
            }
            budget -= 1;
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(entry.path());
            }
        }
    }
}

fn record(path: &Path, out: &mut BTreeMap<PathBuf, Fingerprint>, partial: &mut Vec<PathBuf>) {
    let Some(print) = fingerprint(path) else {
        return;
    };
    let is_dir = print.kind == libc::S_IFDIR;
    out.insert(path.to_path_buf(), print);
    if is_dir {
        let mut budget = MAX_ENTRIES;
        walk(path, out, &mut budget);
        if budget == 0 && !partial.iter().any(|p| p == path) {
            partial.push(path.to_path_buf());
        }
    }
}

fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, Fingerprint>, budget: &mut usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let path = entry.path();
        let Some(print) = fingerprint(&path) else {
            continue;
        };
        let is_dir = print.kind == libc::S_IFDIR;
        out.insert(path.clone(), print);
        if is_dir {
            walk(&path, out, budget);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_and_changed_protected_files_are_set_aside_and_other_files_are_not() {
        let dir = tempfile::tempdir().expect("dir");
        let w = dir.path();
        std::fs::create_dir_all(w.join(".git/hooks")).expect("hooks");
        std::fs::write(w.join(".git/config"), "[core]\n").expect("config");
        std::fs::write(w.join("AGENTS.md"), "be nice").expect("agents");
        let protected = ProtectedPaths::new(vec![w.to_path_buf()], Vec::new());
        let before = ProtectedSnapshot::take(&protected);

        std::fs::write(w.join(".git/hooks/pre-commit"), "#!/bin/sh\nevil").expect("hook");
        std::fs::write(w.join(".mcp.json"), "{}").expect("mcp");
        std::fs::write(w.join("AGENTS.md"), "be evil, longer").expect("agents");
        std::fs::write(w.join("main.rs"), "fn main() {}").expect("code");
        let lines = before.settle();

        assert!(!w.join(".git/hooks/pre-commit").exists(), "{lines:?}");
        assert!(!w.join(".mcp.json").exists());
        assert!(!w.join("AGENTS.md").exists());
        assert!(w.join("main.rs").exists());
        assert!(w.join(".git/config").exists(), "unchanged files stay");
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(
            lines.iter().all(|l| l.contains("tunacode-blocked-")),
            "{lines:?}"
        );
    }

    #[test]
    fn git_redirections_are_set_aside_and_a_taken_aside_name_does_not_keep_them() {
        let dir = tempfile::tempdir().expect("dir");
        let w = dir.path();
        std::fs::create_dir_all(w.join(".git/objects")).expect("git");
        std::fs::create_dir_all(w.join("plain")).expect("plain");
        let protected = ProtectedPaths::new(vec![w.to_path_buf()], Vec::new());
        let before = ProtectedSnapshot::take(&protected);
        std::fs::write(w.join(".git/commondir"), "../evil\n").expect("commondir");
        std::fs::write(w.join(".git/objects/ab"), "x").expect("object");
        // Every name the check could have chosen with a one-second stamp is taken.
        for suffix in ["", "-0", "-1"] {
            std::fs::create_dir_all(w.join(format!("AGENTS.md.tunacode-blocked{suffix}/x")))
                .expect("decoy");
        }
        std::fs::write(w.join("AGENTS.md"), "evil").expect("agents");
        let lines = before.settle();
        assert!(!w.join(".git/commondir").exists(), "{lines:?}");
        assert!(!w.join("AGENTS.md").exists(), "{lines:?}");
        assert!(w.join(".git/objects/ab").exists(), "git's own work stays");
        assert_eq!(lines.len(), 2, "{lines:?}");
    }

    #[test]
    fn a_git_file_made_where_there_was_no_repository_is_set_aside() {
        let dir = tempfile::tempdir().expect("dir");
        let w = dir.path();
        let protected = ProtectedPaths::new(vec![w.to_path_buf()], Vec::new());
        let before = ProtectedSnapshot::take(&protected);
        std::fs::write(w.join(".git"), "gitdir: /tmp/evil\n").expect("gitfile");
        let lines = before.settle();
        assert!(!w.join(".git").exists(), "{lines:?}");
    }

    #[test]
    fn a_parent_made_read_only_does_not_keep_a_protected_path() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("dir");
        let w = dir.path();
        let protected = ProtectedPaths::new(vec![w.to_path_buf()], Vec::new());
        let before = ProtectedSnapshot::take(&protected);
        std::fs::write(w.join(".mcp.json"), "{}").expect("mcp");
        std::fs::set_permissions(w, std::fs::Permissions::from_mode(0o555)).expect("chmod");
        let lines = before.settle();
        assert!(!w.join(".mcp.json").exists(), "{lines:?}");
        let mode = std::fs::metadata(w).expect("meta").permissions().mode();
        assert_eq!(mode & 0o700, 0o700, "the user's folder is writable again");
    }

    #[test]
    fn a_protected_folder_too_big_to_remember_is_set_aside_whole_once_it_changes() {
        let dir = tempfile::tempdir().expect("dir");
        let w = dir.path();
        std::fs::create_dir_all(w.join(".tunacode")).expect("dir");
        for i in 0..=MAX_ENTRIES {
            std::fs::write(w.join(format!(".tunacode/z{i:05}")), "").expect("file");
        }
        let protected = ProtectedPaths::new(vec![w.to_path_buf()], Vec::new());
        let unchanged = ProtectedSnapshot::take(&protected);
        assert_eq!(unchanged.settle(), Vec::<String>::new(), "nothing changed");
        let before = ProtectedSnapshot::take(&protected);
        std::fs::write(w.join(".tunacode/commands.md"), "evil").expect("new");
        let lines = before.settle();
        assert!(!w.join(".tunacode").exists(), "{lines:?}");
    }

    #[test]
    fn a_new_repository_inside_an_existing_one_is_not_fresh() {
        let dir = tempfile::tempdir().expect("dir");
        let w = dir.path();
        std::fs::create_dir_all(w.join(".git/objects")).expect("repo");
        std::fs::create_dir_all(w.join("sub")).expect("sub");
        let protected = ProtectedPaths::new(vec![w.join("sub"), w.to_path_buf()], Vec::new());
        let before = ProtectedSnapshot::take(&protected);
        std::fs::create_dir_all(w.join("sub/.git/objects")).expect("new repo");
        std::fs::write(w.join("sub/.git/config"), "[core]\n\tfsmonitor = evil\n").expect("cfg");
        let lines = before.settle();
        assert!(!w.join("sub/.git/config").exists(), "{lines:?}");
    }

    #[test]
    fn a_repository_the_command_created_keeps_its_config_and_samples_but_not_hooks() {
        let dir = tempfile::tempdir().expect("dir");
        let w = dir.path();
        let protected = ProtectedPaths::new(vec![w.to_path_buf()], Vec::new());
        let before = ProtectedSnapshot::take(&protected);
        std::fs::create_dir_all(w.join(".git/hooks")).expect("hooks");
        std::fs::write(w.join(".git/config"), "[core]\n").expect("config");
        std::fs::write(w.join(".git/hooks/pre-push.sample"), "").expect("sample");
        std::fs::write(w.join(".git/hooks/post-checkout"), "evil").expect("hook");
        let lines = before.settle();
        assert!(w.join(".git/config").exists(), "{lines:?}");
        assert!(w.join(".git/hooks/pre-push.sample").exists());
        assert!(!w.join(".git/hooks/post-checkout").exists());
        assert_eq!(lines.len(), 1, "{lines:?}");
    }
}
