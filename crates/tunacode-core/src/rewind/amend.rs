//! Pre-images: what a file the agent is about to write held just before the turn first wrote it
//! (stored in the shadow store at once, without its index, so it never waits for a snapshot in
//! progress). They complete the turn's before-snapshot: a file it did not record (ignored, like
//! `.env`) is added, and when the snapshot finished late (after the first edit) the file tools'
//! own targets are set to their pre-images, so a snapshot taken in the background never records an
//! edit as the state before it.

use std::collections::HashMap;
use std::path::Path;

use tunacode_store::Snapshot;

use crate::checkpoints::{CheckpointError, Checkpoints};

/// A file before the turn wrote it: its git mode and blob, or `None` when it did not exist.
pub(crate) type PreImage = Option<(String, String)>;

impl Checkpoints {
    /// Records `paths` (workspace-relative) as they are now; regular files over the size cap and
    /// anything else there (a link, a folder) are left out.
    pub(crate) fn pre_images(
        &self,
        paths: &[String],
    ) -> Result<HashMap<String, PreImage>, CheckpointError> {
        self.ensure_store()?;
        let cap = self.limits.max_file_mb.saturating_mul(1 << 20);
        let mut images = HashMap::new();
        let mut regular = Vec::new();
        for path in paths
            .iter()
            .filter(|p| super::snapshot::is_plain(p))
            .filter(|p| super::snapshot::no_link_above(&self.work_tree, p))
        {
            match self.work_tree.join(path).symlink_metadata() {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    images.insert(path.clone(), None);
                }
                Ok(meta) if meta.is_file() && meta.len() <= cap && !path.contains('\n') => {
                    let mode = if std::os::unix::fs::PermissionsExt::mode(&meta.permissions())
                        & 0o100
                        != 0
                    {
                        "100755"
                    } else {
                        "100644"
                    };
                    regular.push((path.clone(), mode));
                }
                _ => {}
            }
        }
        for (path, mode) in regular {
            // Read with no link followed (one swapped in since the check records nothing), then
            // stored as what git would hold for it.
            let Ok(bytes) = tunacode_tools::read_workspace_file(&self.work_tree, Path::new(&path))
            else {
                continue;
            };
            let at = format!("--path={path}");
            let blob = self.git_with(&["hash-object", "-w", "--stdin", &at], bytes)?;
            images.insert(path, Some((mode.to_string(), blob.trim().to_string())));
        }
        Ok(images)
    }

    /// `snapshot` completed with `images`: the files it lacks get their pre-image, and when it
    /// finished late, so do the `early` ones (taken before the turn's first batch ran: a later
    /// pre-image may already hold the turn's own change). The snapshot's commit, or a new one built
    /// on it.
    pub(crate) fn amend(
        &self,
        snapshot: &Snapshot,
        images: &HashMap<String, PreImage>,
        early: &std::collections::HashSet<String>,
    ) -> Result<String, CheckpointError> {
        let paths: Vec<String> = images.keys().cloned().collect();
        let _alone = self.exclusive();
        let recorded = self.entries_at(&snapshot.commit, &paths)?;
        let mut updates: Vec<(&String, &PreImage)> = images
            .iter()
            .filter(|(path, image)| {
                let entry = recorded.get(*path);
                match (snapshot.late && early.contains(*path), entry, image) {
                    (true, _, _) => {
                        entry.map(|e| (&e.mode, &e.blob)) != image.as_ref().map(|(m, b)| (m, b))
                    }
                    (false, None, Some(_)) => true,
                    _ => false,
                }
            })
            .collect();
        if updates.is_empty() {
            return Ok(snapshot.commit.clone());
        }
        updates.sort();
        self.commit_with(&snapshot.commit, &updates)
    }

    /// A commit on `base` with `updates` applied (mode 0 removes a path), built in an index of its
    /// own so the store's index (the next snapshot's starting point) is untouched.
    fn commit_with(
        &self,
        base: &str,
        updates: &[(&String, &PreImage)],
    ) -> Result<String, CheckpointError> {
        let index = tempfile::Builder::new()
            .prefix("amend-index-")
            .tempfile_in(&self.git_dir)
            .map_err(|e| CheckpointError::Git(format!("{}: {e}", self.git_dir.display())))?;
        let index = index.path().to_path_buf();
        let _ = std::fs::remove_file(&index);
        let mut input = String::new();
        for (path, image) in updates {
            // `-z --index-info` records: "<mode> <blob>\t<path>\0" (paths taken as they are).
            let (mode, blob) = match image {
                Some((mode, blob)) => (mode.as_str(), blob.as_str()),
                None => ("0", "0000000000000000000000000000000000000000"),
            };
            input.push_str(&format!("{mode} {blob}\t{path}\0"));
        }
        let committed = (|| {
            self.git_on_index(&index, &["read-tree", base], None)?;
            self.git_on_index(
                &index,
                &["update-index", "-z", "--index-info"],
                Some(input.into_bytes()),
            )?;
            let tree = self.git_on_index(&index, &["write-tree"], None)?;
            let message = "The turn's files as they were before it wrote them";
            let commit = self.git(&["commit-tree", tree.trim(), "-p", base, "-m", message])?;
            let commit = commit.trim().to_string();
            let reference = "refs/tunacode/amended";
            self.git(&["update-ref", "--create-reflog", reference, &commit])?;
            Ok(commit)
        })();
        let _ = std::fs::remove_file(&index);
        committed
    }
}
