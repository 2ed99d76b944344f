//! What the shadow store says about files: which files changed between two snapshots, what a
//! snapshot holds for given paths, what the working tree holds now (hashed as git would store it),
//! and a blob's bytes.

use std::collections::HashMap;

use crate::checkpoints::{CheckpointError, Checkpoints};

/// A file as a snapshot holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Its blob.
    pub(crate) blob: String,
    /// Its git mode (`100644`, `100755`, `120000` for a link).
    pub(crate) mode: String,
}

impl Entry {
    /// Whether it is a regular file (what a restore writes; links and submodules are not).
    pub(crate) fn is_regular(&self) -> bool {
        self.mode == "100644" || self.mode == "100755"
    }
}

/// One file that differs between two snapshots: its old and new blob (`None`: absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    pub(crate) path: String,
    pub(crate) old: Option<String>,
    pub(crate) new: Option<String>,
}

/// Paths per git call (well under the argument length limit).
const CHUNK: usize = 400;

impl Checkpoints {
    /// The files that differ between snapshots `from` and `to`.
    pub(crate) fn changes(&self, from: &str, to: &str) -> Result<Vec<Change>, CheckpointError> {
        let raw = self.git(&["diff-tree", "-r", "-z", "--no-renames", from, to])?;
        let mut fields = raw.split('\0').filter(|f| !f.is_empty());
        let mut changes = Vec::new();
        while let (Some(head), Some(path)) = (fields.next(), fields.next()) {
            // ":<old mode> <new mode> <old blob> <new blob> <status>"
            let parts: Vec<&str> = head.trim_start_matches(':').split(' ').collect();
            let [_, _, old, new, _] = parts[..] else {
                continue;
            };
            changes.push(Change {
                path: path.to_string(),
                old: present(old),
                new: present(new),
            });
        }
        Ok(changes)
    }

    /// What snapshot `commit` holds for each of `paths` (absent ones are missing from the map).
    pub(crate) fn entries_at(
        &self,
        commit: &str,
        paths: &[String],
    ) -> Result<HashMap<String, Entry>, CheckpointError> {
        let mut found = HashMap::new();
        for chunk in paths.chunks(CHUNK) {
            let mut args = vec!["ls-tree", "-r", "-z", commit, "--"];
            args.extend(chunk.iter().map(String::as_str));
            for line in self.git(&args)?.split('\0').filter(|l| !l.is_empty()) {
                // "<mode> <type> <blob>\t<path>"
                let Some((meta, path)) = line.split_once('\t') else {
                    continue;
                };
                let mut meta = meta.split(' ');
                if let (Some(mode), Some(_), Some(blob)) = (meta.next(), meta.next(), meta.next()) {
                    let entry = Entry {
                        blob: blob.to_string(),
                        mode: mode.to_string(),
                    };
                    found.insert(path.to_string(), entry);
                }
            }
        }
        Ok(found)
    }

    /// What the working tree holds now for each of `paths`: the blob a regular file would be
    /// stored as, `other` for anything else there (a link, a folder), nothing when absent.
    pub(crate) fn current(
        &self,
        paths: &[String],
    ) -> Result<HashMap<String, String>, CheckpointError> {
        let mut now = HashMap::new();
        let mut regular = Vec::new();
        for path in paths {
            match self.work_tree.join(path).symlink_metadata() {
                // Git's line input would unquote or cut such a name: its bytes are hashed instead.
                Ok(meta) if meta.is_file() && !super::snapshot::is_plain(path) => {
                    let read = tunacode_tools::read_workspace_file(&self.work_tree, path.as_ref());
                    let blob = match read {
                        Ok(bytes) => self.git_with(&["hash-object", "--stdin"], bytes)?,
                        Err(_) => "other".to_string(),
                    };
                    now.insert(path.clone(), blob.trim().to_string());
                }
                Ok(meta) if meta.is_file() => regular.push(path.clone()),
                Ok(_) => {
                    now.insert(path.clone(), "other".to_string());
                }
                Err(_) => {}
            }
        }
        for chunk in regular.chunks(CHUNK) {
            let input = chunk.join("\n").into_bytes();
            let blobs = self.git_with(&["hash-object", "--stdin-paths"], input)?;
            for (path, blob) in chunk.iter().zip(blobs.lines()) {
                now.insert(path.clone(), blob.trim().to_string());
            }
        }
        Ok(now)
    }

    /// The bytes of `blob`.
    pub(crate) fn blob(&self, blob: &str) -> Result<Vec<u8>, CheckpointError> {
        self.git_raw(&["cat-file", "blob", blob])
    }
}

/// A blob id, or `None` for git's all-zero "absent".
fn present(blob: &str) -> Option<String> {
    (!blob.bytes().all(|b| b == b'0')).then(|| blob.to_string())
}
