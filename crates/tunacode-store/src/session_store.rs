//! [`SessionStore`]: session files under `<sessions_dir>/<project_id>/<session_id>.json`, written
//! atomically (temporary file, fsync, rename) with mode 0600, each with its journal
//! `<session_id>.jsonl` beside it (see [`crate::journal`]). Listing is in `session_list.rs`.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::StoreError;
use crate::journal::{Journal, JournalBase, apply_journal, read_journal};
use crate::session_file::SessionFile;

/// A short description of a stored session, for listings.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SessionSummary {
    /// The id.
    pub session_id: String,
    /// When it was last saved.
    pub last_modified: String,
    /// The model last used.
    pub current_model: String,
    /// How many messages it has.
    pub message_count: usize,
    /// The first user prompt, shortened.
    pub title: String,
    /// The first lines of the conversation, for a picker's preview.
    #[serde(default)]
    pub preview: String,
    /// The file.
    pub path: PathBuf,
}

/// A session read back: the checkpoint with its journal replayed.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSession {
    /// The session as the last process left it.
    pub file: SessionFile,
    /// Where it was read from: this version's folder, or the Python TunaCode's flat folder (a file
    /// this version never writes to; the session is saved in its own folder from then on).
    pub from_python: bool,
    /// Journal lines replayed onto the checkpoint (non-zero: the last process did not finish cleanly,
    /// and the file should be saved again).
    pub recovered: usize,
    /// The checkpoint the file is (what new journal lines follow).
    pub base: JournalBase,
}

/// Reads and writes the session files of one sessions directory.
#[derive(Debug, Clone)]
pub struct SessionStore {
    root: PathBuf,
}

impl SessionStore {
    /// A store rooted at `sessions_dir`.
    pub fn new(sessions_dir: impl Into<PathBuf>) -> Self {
        SessionStore {
            root: sessions_dir.into(),
        }
    }

    /// The directory of a project's sessions.
    pub fn project_dir(&self, project_id: &str) -> PathBuf {
        self.root.join(project_id)
    }

    /// The file of one session (`session_id` as [`is_session_id`] accepts it).
    pub fn path_of(&self, project_id: &str, session_id: &str) -> PathBuf {
        self.project_dir(project_id)
            .join(format!("{session_id}.json"))
    }

    /// Writes a session atomically (a crash leaves either the old file or the new one, never half; a
    /// failed write leaves the old file and no temporary file), then removes the journal it includes.
    /// Returns the checkpoint new journal lines follow.
    pub fn save(&self, session: &SessionFile) -> Result<JournalBase, StoreError> {
        let dir = self.project_dir(&session.project_id);
        std::fs::create_dir_all(&dir).map_err(|e| StoreError::io(&dir, e))?;
        let path = self.path_of(&session.project_id, &session.session_id);
        let json = serde_json::to_vec_pretty(session).map_err(|e| {
            StoreError::io(
                &path,
                std::io::Error::new(std::io::ErrorKind::InvalidData, e),
            )
        })?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".tmp-")
            .suffix(".json")
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .tempfile_in(&dir)
            .map_err(|e| StoreError::io(&dir, e))?;
        tmp.write_all(&json)
            .map_err(|e| StoreError::io(tmp.path(), e))?;
        tmp.as_file()
            .sync_all()
            .map_err(|e| StoreError::io(tmp.path(), e))?;
        tmp.persist(&path)
            .map_err(|e| StoreError::io(&path, e.error))?;
        // The file now holds everything the journal had.
        self.journal(&session.project_id, &session.session_id)
            .reset()?;
        Ok(base_of(json.len(), session))
    }

    /// The journal of one session.
    pub fn journal(&self, project_id: &str, session_id: &str) -> Journal {
        Journal::new(
            self.project_dir(project_id)
                .join(format!("{session_id}.jsonl")),
        )
    }

    /// Reads a session file (without its journal). A malformed file is an error naming the file and
    /// position; it is not touched.
    pub fn load_file(path: &Path) -> Result<SessionFile, StoreError> {
        let text = std::fs::read(path).map_err(|e| StoreError::io(path, e))?;
        parse_session(&text).map_err(|e| StoreError::malformed(path, &e))
    }

    /// Reads one session of a project, with its journal replayed (a killed process loses at most
    /// the response that was streaming).
    pub fn load(&self, project_id: &str, session_id: &str) -> Result<LoadedSession, StoreError> {
        // An id names a file in the project's folder, never a path elsewhere (`--session ../x`).
        if !is_session_id(session_id) {
            return Err(StoreError::SessionNotFound {
                id: session_id.to_string(),
                dir: self.project_dir(project_id),
            });
        }
        let path = self.path_of(project_id, session_id);
        if !path.exists() {
            return match self.python_file(session_id) {
                Some(python) => {
                    let file = Self::load_file(&python)?;
                    Ok(LoadedSession {
                        base: base_of(0, &file),
                        file,
                        recovered: 0,
                        from_python: true,
                    })
                }
                None => Err(StoreError::SessionNotFound {
                    id: session_id.to_string(),
                    dir: self.project_dir(project_id),
                }),
            };
        }
        let bytes = std::fs::read(&path).map_err(|e| StoreError::io(&path, e))?;
        let mut file = parse_session(&bytes).map_err(|e| StoreError::malformed(&path, &e))?;
        let base = base_of(bytes.len(), &file);
        let journal = self.journal(project_id, session_id);
        let recovered = match std::fs::read(journal.path()) {
            Ok(text) => apply_journal(&mut file.messages, read_journal(&text, &base)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(e) => return Err(StoreError::io(journal.path(), e)),
        };
        if recovered == 0 {
            // Empty, or left from an older checkpoint: new lines must not follow its header.
            journal.reset()?;
        }
        Ok(LoadedSession {
            file,
            recovered,
            base,
            from_python: false,
        })
    }

    /// The Python TunaCode's file of a session: `<sessions>/<project>_<session_id>.json` (its
    /// project id may differ from ours inside a git repository, so any project prefix matches).
    fn python_file(&self, session_id: &str) -> Option<PathBuf> {
        let suffix = format!("_{session_id}.json");
        std::fs::read_dir(&self.root)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.is_file()
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.ends_with(&suffix))
            })
    }

    /// The root every project's folder is in (the Python TunaCode keeps its files here, flat).
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }
}

fn base_of(bytes: usize, file: &SessionFile) -> JournalBase {
    JournalBase {
        bytes: bytes as u64,
        messages: file.messages.len(),
        modified: file.last_modified.clone(),
    }
}

/// Parses a session file's bytes: this version's (and the seeds' pydantic-era) format, or a session of
/// the Python TunaCode 0.2.x, whose messages are converted into canonical ones.
pub fn parse_session(bytes: &[u8]) -> Result<SessionFile, serde_json::Error> {
    let mut file: SessionFile = serde_json::from_slice(bytes)?;
    if crate::legacy_v02::is_v02(&file.messages) {
        let messages = std::mem::take(&mut file.messages);
        file.messages = crate::legacy_v02::convert(messages, file.extra.get("compaction"));
    }
    Ok(file)
}

/// Whether `id` can be a session id: letters, digits, `-`, `_` and `.` (not first), at most 128
/// characters, so it always names a file inside its project's folder.
pub fn is_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use tunacode_protocol::Message;

    fn session(id: &str, modified: &str) -> SessionFile {
        crate::session_file::test_session(id, modified)
    }

    #[test]
    fn an_id_that_is_a_path_is_not_found() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("secret.json"), "{}").unwrap();
        let store = SessionStore::new(dir.path().join("sessions"));
        for id in ["../../secret", "../x", "a/b", ".hidden", ""] {
            assert!(
                matches!(
                    store.load("proj", id),
                    Err(StoreError::SessionNotFound { .. })
                ),
                "{id:?}"
            );
        }
        assert!(is_session_id("419e1ea4-6f90-4b41-9864-40770505bd3c"));
    }

    #[test]
    fn saves_atomically_with_0600_and_loads_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let s = session("a", "2026-01-01T00:00:00Z");
        store.save(&s).unwrap();
        let path = dir.path().join("proj/a.json");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(store.load("proj", "a").unwrap().file, s);
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("proj"))
            .unwrap()
            .collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left behind");
    }

    #[test]
    fn a_journal_after_the_checkpoint_is_replayed_and_a_stale_one_is_dropped() {
        use crate::journal::{JournalEntry, JournalRecord};
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let s = session("a", "2026-01-01T00:00:00Z");
        let base = store.save(&s).unwrap();
        let journal = store.journal("proj", "a");
        let line = JournalEntry {
            at: 1,
            record: JournalRecord::Message(Message::user("after the save")),
        };
        journal.append(&base, std::slice::from_ref(&line)).unwrap();
        let loaded = store.load("proj", "a").unwrap();
        assert_eq!(loaded.recovered, 1);
        assert_eq!(loaded.file.messages.len(), 2);
        assert_eq!(loaded.base, base);
        // Saving the recovered session removes the journal it includes.
        let mut saved = loaded.file.clone();
        saved.last_modified = "2026-01-01T00:00:05Z".into();
        let new_base = store.save(&saved).unwrap();
        assert!(!journal.path().exists());
        assert_ne!(new_base, base);
        // Lines following the old checkpoint (a crash between save and removal) are not replayed,
        // and the stale journal goes so new lines are not written after its header.
        let stale = store.journal("proj", "a");
        stale.append(&base, &[line]).unwrap();
        let loaded = store.load("proj", "a").unwrap();
        assert_eq!((loaded.recovered, loaded.file.messages.len()), (0, 2));
        assert!(!stale.path().exists());
    }
}
