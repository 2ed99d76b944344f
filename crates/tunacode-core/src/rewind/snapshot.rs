//! Taking a snapshot: the working tree into the shadow store, bounded. A walk that honours the
//! user's ignore files finds the files over the size cap; they and the folders the user excluded go
//! into the store's own exclude file (and out of its index), so git never reads them, and the
//! snapshot names the big ones with their size and time. Files the agent touched are added even
//! when ignored (`.env`, generated config). A [`Stop`] ends it between files and kills its git.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use tunacode_store::{SkippedFile, Snapshot};

use crate::checkpoints::{CheckpointError, Checkpoints, Stop};

impl Checkpoints {
    /// Records the working tree now, with `forced` (workspace-relative files the agent touches)
    /// added even when ignored; `label` says why (`before prompt 3`). Runs alone (see
    /// [`Checkpoints::exclusive`]).
    pub fn take(
        &self,
        session_id: &str,
        label: &str,
        forced: &[String],
        stop: &Stop,
    ) -> Result<Snapshot, CheckpointError> {
        let _alone = self.exclusive();
        self.ensure_store()?;
        let Walked {
            big: skipped,
            nested,
        } = self.walk(stop)?;
        self.exclude(&skipped, &nested)?;
        self.add_all(stop)?;
        // `add -A` took every file it does not ignore; the ignored ones the agent touched are added
        // by name.
        let root = &self.work_tree;
        let forced: Vec<String> = self
            .small_files(forced)
            .into_iter()
            .filter(|p| super::ignored::possibly_ignored(root, p, &self.limits.exclude))
            .collect();
        if !forced.is_empty() {
            let mut args = vec!["add", "-f", "--"];
            args.extend(forced.iter().map(String::as_str));
            self.git_until(&args, None, stop)?;
        }
        let message = format!("{label}\n\nSession: {session_id}");
        let commit = [
            "commit",
            "-q",
            "--allow-empty",
            "--no-verify",
            "-m",
            &message,
        ];
        self.git_until(&commit, None, stop)?;
        let commit = match self.head_commit() {
            Some(commit) => commit,
            None => self.git_until(&["rev-parse", "HEAD"], None, stop)?,
        };
        Ok(Snapshot {
            commit: commit.trim().to_string(),
            skipped,
            nested,
            late: false,
        })
    }

    /// The commit HEAD names, read from the store's files (a loose ref: gc never packs them);
    /// `None` when it is not there so plainly.
    fn head_commit(&self) -> Option<String> {
        let head = std::fs::read_to_string(self.git_dir.join("HEAD")).ok()?;
        let name = head.trim().strip_prefix("ref: ")?;
        if !name.starts_with("refs/heads/") || name.contains("..") {
            return None;
        }
        let commit = std::fs::read_to_string(self.git_dir.join(name)).ok()?;
        let commit = commit.trim();
        (commit.len() >= 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| commit.to_string())
    }

    /// `git add -A`: a file git cannot read (no permission) is left out, not the whole snapshot.
    fn add_all(&self, stop: &Stop) -> Result<(), CheckpointError> {
        match self.git_until(&["add", "-A", "--ignore-errors", "--", "."], None, stop) {
            Err(CheckpointError::Git(message)) if !message.contains("fatal:") => {
                tracing::warn!(%message, "files left out of a rewind snapshot");
                Ok(())
            }
            other => other.map(|_| ()),
        }
    }

    /// The files over the size cap that git would take (ignored and excluded ones are not walked),
    /// and the folders that are repositories of their own (never recorded: git would run their own
    /// configuration to look into them).
    fn walk(&self, stop: &Stop) -> Result<Walked, CheckpointError> {
        let cap = self.limits.max_file_mb.saturating_mul(1 << 20);
        let mut overrides = ignore::overrides::OverrideBuilder::new(&self.work_tree);
        for pattern in &self.limits.exclude {
            overrides
                .add(&format!("!{pattern}"))
                .map_err(|e| CheckpointError::Git(format!("settings.rewind.exclude: {e}")))?;
        }
        let overrides = overrides
            .build()
            .map_err(|e| CheckpointError::Git(format!("settings.rewind.exclude: {e}")))?;
        // What the store's git reads: the `.gitignore` files and the user's global excludes (not
        // `.ignore` files, not the repository's own `info/exclude`).
        let root = self.work_tree.clone();
        let walk = ignore::WalkBuilder::new(&self.work_tree)
            .hidden(false)
            .parents(false)
            .ignore(false)
            .git_exclude(false)
            .require_git(false)
            .overrides(overrides)
            .filter_entry(move |entry| {
                entry.file_name() != ".git"
                    && (entry.path() == root || !entry.path().join(".git").exists())
            })
            .build();
        let mut walked = Walked::default();
        for (seen, entry) in walk.flatten().enumerate() {
            if seen % 1024 == 0 && stop.is_stopped() {
                return Err(CheckpointError::Stopped);
            }
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            if meta.is_dir() {
                walked.nested.extend(self.nested_below(entry.path()));
                continue;
            }
            if !meta.is_file() || meta.len() <= cap {
                continue;
            }
            let Ok(rel) = entry.path().strip_prefix(&self.work_tree) else {
                continue;
            };
            walked.big.push(SkippedFile {
                path: rel.to_string_lossy().into_owned(),
                size: meta.len(),
                modified: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            });
        }
        walked.big.sort_by(|a, b| a.path.cmp(&b.path));
        walked.nested.sort();
        Ok(walked)
    }

    /// The folders right below `dir` that are repositories of their own.
    fn nested_below(&self, dir: &Path) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir() && !p.is_symlink() && p.join(".git").exists())
            .filter_map(|p| {
                p.strip_prefix(&self.work_tree)
                    .ok()
                    .map(|r| r.to_string_lossy().into_owned())
            })
            .collect()
    }

    /// Keeps the big files and the user's exclusions out of the store: its exclude file names
    /// them, and those already in its index leave it.
    fn exclude(&self, big: &[SkippedFile], nested: &[String]) -> Result<(), CheckpointError> {
        let mut lines: Vec<String> = self.limits.exclude.clone();
        lines.extend(big.iter().map(|f| format!("/{}", escape_pattern(&f.path))));
        lines.extend(nested.iter().map(|d| format!("/{}/", escape_pattern(d))));
        let mut text = lines.join("\n");
        text.push('\n');
        let info = self.git_dir.join("info");
        let file = info.join("exclude");
        if std::fs::read_to_string(&file).ok().as_deref() != Some(text.as_str()) {
            let io = |e: std::io::Error| CheckpointError::Git(format!("{}: {e}", file.display()));
            tunacode_store::private_dir(&info).map_err(io)?;
            std::fs::write(&file, &text).map_err(io)?;
        }
        let mut gone: Vec<String> = big.iter().map(|f| f.path.clone()).collect();
        gone.extend(nested.iter().cloned());
        gone.extend(
            self.limits
                .exclude
                .iter()
                .filter(|p| !p.contains(['*', '?', '[', '!']))
                .map(|p| p.trim_matches('/').to_string())
                .filter(|p| !p.is_empty()),
        );
        if gone.is_empty() {
            return Ok(());
        }
        let mut args = vec!["rm", "-q", "-r", "--cached", "--ignore-unmatch", "--"];
        args.extend(gone.iter().map(String::as_str));
        self.git(&args).map(|_| ())
    }

    /// Of `paths`, the regular files under the size cap (what `git add -f` may take).
    fn small_files(&self, paths: &[String]) -> Vec<String> {
        let cap = self.limits.max_file_mb.saturating_mul(1 << 20);
        let mut small: Vec<String> = paths
            .iter()
            .filter(|p| is_plain(p) && no_link_above(&self.work_tree, p))
            .filter(|p| {
                self.work_tree
                    .join(p)
                    .symlink_metadata()
                    .is_ok_and(|m| m.is_file() && m.len() <= cap)
            })
            .cloned()
            .collect();
        small.sort();
        small.dedup();
        small
    }
}

/// Whether `path` is a plain workspace-relative path: no `..`, not absolute, and none of the
/// characters git quotes in its line-based input (`"`, `\\`, control characters).
pub(crate) fn is_plain(path: &str) -> bool {
    let as_path = Path::new(path);
    !path.is_empty()
        && !path
            .chars()
            .any(|c| c == '"' || c == '\\' || c.is_control())
        && as_path
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// Whether no folder on the way from `root` to `rel` is a symbolic link (git never records a
/// file beyond one, and neither is a pre-image taken through one).
pub(crate) fn no_link_above(root: &Path, rel: &str) -> bool {
    let mut at = root.to_path_buf();
    let parents: Vec<_> = Path::new(rel).components().collect();
    let Some((_, dirs)) = parents.split_last() else {
        return false;
    };
    dirs.iter().all(|dir| {
        at.push(dir);
        at.symlink_metadata().is_ok_and(|m| m.is_dir())
    })
}

/// What a walk of the workspace found.
#[derive(Default)]
struct Walked {
    /// Files over the size cap.
    big: Vec<SkippedFile>,
    /// Folders that are repositories of their own.
    nested: Vec<String>,
}

/// A gitignore pattern matching exactly `path`.
fn escape_pattern(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        // A line break cannot be written in a pattern: any one character stands for it.
        if c.is_control() {
            out.push('?');
            continue;
        }
        if matches!(c, '*' | '?' | '[' | ']' | '\\' | '!' | '#' | ' ') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
