//! Listing a project's sessions without reading every file: `index.json` in the project's folder
//! caches each session file's summary under its size and modification time. The index is only a
//! cache: a file whose size or time changed (or one copied in by hand) is read and its summary
//! cached anew, an entry whose file is gone is dropped, and an index that cannot be read or written
//! is rebuilt or skipped without an error.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::error::StoreError;
use crate::session_store::{SessionStore, SessionSummary};
pub(crate) use crate::session_summary::summarize;

pub use crate::session_store::INDEX_FILE;

#[derive(Debug, Default, Serialize, Deserialize)]
struct Index {
    version: u32,
    entries: BTreeMap<String, IndexEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct IndexEntry {
    len: u64,
    modified_ns: u64,
    summary: SessionSummary,
}

/// What a scan of the folder found.
struct Scan {
    /// Readable sessions and when their files (or journals) last changed.
    sessions: Vec<(SessionSummary, u64)>,
    /// Unreadable files and when they last changed.
    broken: Vec<(StoreError, u64)>,
}

impl SessionStore {
    /// The project's sessions, newest first. Files that cannot be read are listed in the second
    /// vector with their error, not skipped silently.
    pub fn list(
        &self,
        project_id: &str,
    ) -> Result<(Vec<SessionSummary>, Vec<StoreError>), StoreError> {
        let scan = self.scan(project_id)?;
        let mut sessions: Vec<SessionSummary> = scan.sessions.into_iter().map(|(s, _)| s).collect();
        sessions.sort_by(|a, b| b.last_modified.cmp(&a.last_modified));
        Ok((sessions, scan.broken.into_iter().map(|(e, _)| e).collect()))
    }

    /// The session changed last (for `--continue`); an error when that file cannot be read, so a
    /// corrupt newest session is said rather than silently passed over.
    pub fn latest(&self, project_id: &str) -> Result<Option<SessionSummary>, StoreError> {
        let scan = self.scan(project_id)?;
        let newest_ok = scan.sessions.into_iter().max_by_key(|(_, t)| *t);
        let newest_broken = scan.broken.into_iter().max_by_key(|(_, t)| *t);
        match (newest_ok, newest_broken) {
            (Some((ok, t)), Some((_, tb))) if t >= tb => Ok(Some(ok)),
            (_, Some((broken, _))) => Err(broken),
            (ok, None) => Ok(ok.map(|(s, _)| s)),
        }
    }

    /// The Python TunaCode's files of this project (`<root>/<project>_<session>.json`), named in the
    /// index as `python:<file name>`.
    fn python_candidates(&self, project_id: &str) -> Vec<(String, PathBuf)> {
        let prefix = format!("{project_id}_");
        let Ok(entries) = std::fs::read_dir(self.root()) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (name.starts_with(&prefix) && name.ends_with(".json"))
                    .then(|| (format!("python:{name}"), e.path()))
            })
            .collect()
    }

    fn scan(&self, project_id: &str) -> Result<Scan, StoreError> {
        let dir = self.project_dir(project_id);
        let entries: Vec<std::fs::DirEntry> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries.flatten().collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(StoreError::io(&dir, e)),
        };
        let old = read_index(&dir);
        let python = self.python_candidates(project_id);
        let mut index = Index {
            version: 1,
            entries: BTreeMap::new(),
        };
        let mut scan = Scan {
            sessions: vec![],
            broken: vec![],
        };
        let ours = entries.into_iter().filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let listed = name.ends_with(".json")
                && !name.starts_with(".tmp-")
                && !name.ends_with(".tree.json")
                && !name.ends_with(crate::session_summary::SIDECAR_SUFFIX)
                && name != INDEX_FILE;
            listed.then(|| (name, entry.path()))
        });
        let mut seen = std::collections::HashSet::new();
        for (name, path) in ours.collect::<Vec<_>>().into_iter().chain(python) {
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            let (len, modified_ns) = (meta.len(), nanos(meta.modified().ok()));
            let changed = journal_time(&path).max(modified_ns);
            let summary = match cached_or_read(&old, &name, path, len, modified_ns) {
                Ok(summary) => summary,
                Err(e) => {
                    scan.broken.push((e, changed));
                    continue;
                }
            };
            // A Python session already resumed here is listed once, as this version's file.
            if !seen.insert(summary.session_id.clone()) {
                continue;
            }
            index.entries.insert(
                name,
                IndexEntry {
                    len,
                    modified_ns,
                    summary: summary.clone(),
                },
            );
            scan.sessions.push((summary, changed));
        }
        if index.entries != old.entries && dir.is_dir() {
            // A cache: when it cannot be written the next listing reads the files again.
            let _ = write_index(&dir, &index);
        }
        Ok(scan)
    }
}

/// A file's summary: from the index when its size and time match, else read from the file.
fn cached_or_read(
    index: &Index,
    name: &str,
    path: PathBuf,
    len: u64,
    modified_ns: u64,
) -> Result<SessionSummary, StoreError> {
    match index
        .entries
        .get(name)
        .filter(|e| e.len == len && e.modified_ns == modified_ns)
    {
        Some(e) => Ok(e.summary.clone()),
        None => match crate::session_summary::read_sidecar(&path, len, modified_ns) {
            Some(summary) => Ok(summary),
            None => SessionStore::load_file(&path).map(|file| summarize(&file, path)),
        },
    }
}

fn nanos(time: Option<SystemTime>) -> u64 {
    time.and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// When the session's journal last changed (0 without one).
fn journal_time(session_file: &Path) -> u64 {
    let journal = session_file.with_extension("jsonl");
    nanos(std::fs::metadata(journal).and_then(|m| m.modified()).ok())
}

fn read_index(dir: &Path) -> Index {
    std::fs::read(dir.join(INDEX_FILE))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Index>(&bytes).ok())
        .filter(|i| i.version == 1)
        .unwrap_or_default()
}

fn write_index(dir: &Path, index: &Index) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(index).map_err(std::io::Error::other)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-index-")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))
        .tempfile_in(dir)?;
    tmp.write_all(&bytes)?;
    tmp.persist(dir.join(INDEX_FILE)).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
#[path = "session_list_tests.rs"]
mod tests;
