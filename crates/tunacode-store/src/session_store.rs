//! [`SessionStore`]: session files under `<sessions_dir>/<project_id>/<session_id>.json`, written
//! atomically (temporary file, fsync, rename) with mode 0600.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::StoreError;
use crate::session_file::SessionFile;

/// A short description of a stored session, for listings.
#[derive(Debug, Clone, PartialEq)]
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
    /// The file.
    pub path: PathBuf,
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

    /// The file of one session.
    pub fn path_of(&self, project_id: &str, session_id: &str) -> PathBuf {
        self.project_dir(project_id)
            .join(format!("{session_id}.json"))
    }

    /// Writes a session atomically: a crash leaves either the old file or the new one, never half.
    pub fn save(&self, session: &SessionFile) -> Result<PathBuf, StoreError> {
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
        Ok(path)
    }

    /// Reads a session file. A malformed file is an error naming the file and position; it is not
    /// touched.
    pub fn load_file(path: &Path) -> Result<SessionFile, StoreError> {
        let text = std::fs::read_to_string(path).map_err(|e| StoreError::io(path, e))?;
        serde_json::from_str(&text).map_err(|e| StoreError::malformed(path, &e))
    }

    /// Reads one session of a project.
    pub fn load(&self, project_id: &str, session_id: &str) -> Result<SessionFile, StoreError> {
        let path = self.path_of(project_id, session_id);
        if !path.exists() {
            return Err(StoreError::SessionNotFound {
                id: session_id.to_string(),
                dir: self.project_dir(project_id),
            });
        }
        Self::load_file(&path)
    }

    /// The project's sessions, newest first. Files that cannot be read are listed in the second
    /// vector with their error, not skipped silently.
    pub fn list(
        &self,
        project_id: &str,
    ) -> Result<(Vec<SessionSummary>, Vec<StoreError>), StoreError> {
        let dir = self.project_dir(project_id);
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((vec![], vec![])),
            Err(e) => return Err(StoreError::io(&dir, e)),
        };
        let mut sessions = Vec::new();
        let mut broken = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".json") || name.starts_with(".tmp-") {
                continue;
            }
            match Self::load_file(&path) {
                Ok(file) => sessions.push(summarize(&file, path)),
                Err(e) => broken.push(e),
            }
        }
        sessions.sort_by(|a, b| b.last_modified.cmp(&a.last_modified));
        Ok((sessions, broken))
    }
}

fn summarize(file: &SessionFile, path: PathBuf) -> SessionSummary {
    let title = file
        .messages
        .iter()
        .filter(|m| m.is_request())
        .flat_map(|m| m.parts.iter())
        .find_map(|p| match p {
            tunacode_protocol::Part::UserPrompt(u) => {
                Some(tunacode_protocol::content_to_text(&u.content))
            }
            _ => None,
        })
        .unwrap_or_default();
    let title: String = title
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(60)
        .collect();
    SessionSummary {
        session_id: file.session_id.clone(),
        last_modified: file.last_modified.clone(),
        current_model: file.current_model.clone(),
        message_count: file.messages.len(),
        title,
        path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session_file::SESSION_FORMAT_VERSION;
    use std::os::unix::fs::PermissionsExt;
    use tunacode_protocol::{Message, Usage};

    fn session(id: &str, modified: &str) -> SessionFile {
        SessionFile {
            version: SESSION_FORMAT_VERSION,
            session_id: id.into(),
            project_id: "proj".into(),
            created_at: modified.into(),
            last_modified: modified.into(),
            working_directory: "/w".into(),
            current_model: "openai:m".into(),
            total_tokens: 0,
            session_total_usage: Usage::default(),
            thoughts: vec![],
            messages: vec![Message::user("fix the bug\nplease")],
            extra: Default::default(),
        }
    }

    #[test]
    fn saves_atomically_with_0600_and_loads_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let s = session("a", "2026-01-01T00:00:00Z");
        let path = store.save(&s).unwrap();
        assert_eq!(path, dir.path().join("proj/a.json"));
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(store.load("proj", "a").unwrap(), s);
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("proj"))
            .unwrap()
            .collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left behind");
    }

    #[test]
    fn lists_newest_first_and_reports_broken_files_without_touching_them() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        store.save(&session("old", "2026-01-01T00:00:00Z")).unwrap();
        store.save(&session("new", "2026-02-01T00:00:00Z")).unwrap();
        let broken = dir.path().join("proj/bad.json");
        std::fs::write(&broken, "{\"version\": 1,").unwrap();
        let (list, errors) = store.list("proj").unwrap();
        let ids: Vec<_> = list.iter().map(|s| s.session_id.as_str()).collect();
        assert_eq!(ids, ["new", "old"]);
        assert_eq!(list[0].title, "fix the bug");
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].to_string().contains("bad.json:1:"),
            "{}",
            errors[0]
        );
        assert_eq!(
            std::fs::read_to_string(&broken).unwrap(),
            "{\"version\": 1,"
        );
        assert!(matches!(
            store.load("proj", "zzz"),
            Err(StoreError::SessionNotFound { .. })
        ));
    }
}
