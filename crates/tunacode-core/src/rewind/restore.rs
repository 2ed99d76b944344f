//! Putting files back, never over the user's work: each file to restore names what it must hold
//! now (what the agent left it as) and what it becomes. A file that holds something else (the user
//! changed it since) is kept as it is and named; a file already as wanted is left alone. Files are
//! written beneath the workspace root and never through a link (`tunacode_tools::restore_workspace_file`);
//! links and submodules in a snapshot are named, never created.

use std::collections::BTreeMap;
use std::path::Path;

use tunacode_protocol::runtime::{SkippedRestore, UndoneFile};

use super::files::Entry;
use crate::checkpoints::{CheckpointError, Checkpoints};

/// One file to put back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileTarget {
    /// Workspace-relative path.
    pub(crate) path: String,
    /// The blob it must hold now to be changed (`None`: it must be absent).
    pub(crate) expected: Option<String>,
    /// What it becomes (`None`: removed).
    pub(crate) target: Option<Entry>,
}

/// What a restore did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Restored {
    /// Files put back.
    pub(crate) files: Vec<UndoneFile>,
    /// Files the user changed since: kept.
    pub(crate) kept: Vec<String>,
    /// Files that could not be put back.
    pub(crate) skipped: Vec<SkippedRestore>,
    /// What each changed file holds now (`None`: removed).
    pub(crate) written: BTreeMap<String, Option<String>>,
}

impl Checkpoints {
    /// Puts back each of `targets` that still holds what it is expected to.
    pub(crate) fn restore_files(
        &self,
        targets: Vec<FileTarget>,
    ) -> Result<Restored, CheckpointError> {
        let _alone = self.exclusive();
        let paths: Vec<String> = targets.iter().map(|t| t.path.clone()).collect();
        let now = self.current(&paths)?;
        let mut done = Restored::default();
        for target in targets {
            let current = now.get(&target.path);
            let wanted = target.target.as_ref().map(|e| &e.blob);
            if current == wanted {
                continue;
            }
            if current != target.expected.as_ref() {
                done.kept.push(target.path);
                continue;
            }
            match self.put_back(&target, current.is_some()) {
                Ok(action) => {
                    done.written.insert(target.path.clone(), wanted.cloned());
                    done.files.push(UndoneFile {
                        path: target.path,
                        action: action.to_string(),
                    });
                }
                Err(reason) => done.skipped.push(SkippedRestore {
                    path: target.path,
                    reason,
                }),
            }
        }
        Ok(done)
    }

    /// Writes or removes one file; what was done, or why not.
    fn put_back(&self, target: &FileTarget, exists: bool) -> Result<&'static str, String> {
        let rel = Path::new(&target.path);
        let root = &self.work_tree;
        match &target.target {
            None => tunacode_tools::restore_workspace_file(root, rel, None, false)
                .map(|()| "removed")
                .map_err(|e| e.to_string()),
            Some(entry) if !entry.is_regular() => Err(match entry.mode.as_str() {
                "120000" => "it was a symbolic link (rewind never creates links)".into(),
                _ => "it was a submodule".into(),
            }),
            Some(entry) => {
                let bytes = self.blob(&entry.blob).map_err(|e| e.to_string())?;
                let executable = entry.mode == "100755";
                tunacode_tools::restore_workspace_file(root, rel, Some(&bytes), executable)
                    .map_err(|e| e.to_string())?;
                Ok(if exists { "restored" } else { "recreated" })
            }
        }
    }
}
