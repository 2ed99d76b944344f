//! [`SessionStore`]: session files under `<sessions_dir>/<project_id>/<session_id>.json`, written
//! atomically (temporary file, fsync, rename) with mode 0600, each with its journal
//! `<session_id>.jsonl` beside it (see [`crate::journal`]). Listing is in `session_list.rs`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::StoreError;
use crate::journal::{Journal, JournalBase};
use crate::journal_replay::{JournalProblem, replay_journal};
use crate::session_file::SessionFile;

/// The list index's file name in a project's folder (`session_list.rs`).
pub const INDEX_FILE: &str = "index.json";

pub use tunacode_protocol::runtime::SessionSummary;

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
    /// Journal lines that could not be replayed, kept beside the session (`None`: nothing was).
    pub kept_aside: Option<KeptAside>,
}

/// The part of a journal that could not be replayed, kept in a file of its own beside the session
/// (never removed by TunaCode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptAside {
    /// The file: `<session_id>.jsonl.corrupt-<time>`, mode 0600.
    pub path: PathBuf,
    /// How many journal lines it keeps that were not replayed.
    pub lines: usize,
    /// Why they were not.
    pub reason: JournalProblem,
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

    /// The full id of the session `id` names in the project: itself when a session has it, else the
    /// one session whose id begins with it (the 8-character ids the front ends show). An id that
    /// begins none is returned as is (loading it then says it is not found, or finds a Python one).
    pub fn resolve_id(&self, project_id: &str, id: &str) -> Result<String, StoreError> {
        if !is_session_id(id) || self.path_of(project_id, id).exists() {
            return Ok(id.to_string());
        }
        let entries = match std::fs::read_dir(self.project_dir(project_id)) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(id.to_string()),
            Err(e) => return Err(StoreError::io(self.project_dir(project_id), e)),
        };
        let matching: Vec<String> = entries
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter_map(|name| name.strip_suffix(".json").map(str::to_string))
            .filter(|name| name.starts_with(id) && is_session_id(name))
            .filter(|name| !name.ends_with(".tree") && !name.ends_with(".summary"))
            .filter(|name| name != INDEX_FILE.trim_end_matches(".json"))
            .collect();
        match matching.as_slice() {
            [] => Ok(id.to_string()),
            [one] => Ok(one.clone()),
            _ => Err(StoreError::AmbiguousSession {
                id: id.to_string(),
                count: matching.len(),
            }),
        }
    }

    /// Writes a session atomically (a crash leaves either the old file or the new one, never half; a
    /// failed write leaves the old file and no temporary file), then removes the journal it includes.
    /// Returns the checkpoint new journal lines follow.
    pub fn save(&self, session: &SessionFile) -> Result<JournalBase, StoreError> {
        let dir = self.project_dir(&session.project_id);
        crate::private::private_dir(&dir).map_err(|e| StoreError::io(&dir, e))?;
        let path = self.path_of(&session.project_id, &session.session_id);
        // Written straight into the file: a long session's text is never whole in memory.
        let mut written = 0;
        crate::private::write_file_atomically_with(&path, |file| {
            let mut out = CountingWriter::new(std::io::BufWriter::with_capacity(1 << 16, file));
            // A write error keeps its own kind (a full disk); a value JSON cannot hold is InvalidData.
            serde_json::to_writer(&mut out, session).map_err(std::io::Error::from)?;
            std::io::Write::flush(&mut out)?;
            written = out.count;
            Ok(())
        })
        .map_err(|(at, e)| StoreError::io(at, e))?;
        crate::session_summary::write_sidecar(&path, session);
        // The file now holds everything the journal had.
        self.journal(&session.project_id, &session.session_id)
            .reset()?;
        Ok(base_of(written, session))
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
                        kept_aside: None,
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
        let (recovered, kept_aside) = match std::fs::read(journal.path()) {
            Ok(text) => recover(&journal, &text, &base, Arc::make_mut(&mut file.messages))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (0, None),
            Err(e) => return Err(StoreError::io(journal.path(), e)),
        };
        if recovered == 0 {
            // Empty, kept aside, or left from an older checkpoint: new lines must not follow its
            // header. (With lines recovered, the caller's save removes it.)
            journal.reset()?;
        }
        Ok(LoadedSession {
            file,
            recovered,
            base,
            from_python: false,
            kept_aside,
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

/// Writes `bytes` to `path` (in `dir`, made private first) atomically with mode 0600.
pub(crate) fn write_private_atomically(
    dir: &Path,
    path: &Path,
    bytes: &[u8],
) -> Result<(), StoreError> {
    crate::private::private_dir(dir).map_err(|e| StoreError::io(dir, e))?;
    crate::private::write_file_atomically(path, bytes).map_err(|(at, e)| StoreError::io(at, e))
}

/// Replays a journal's text onto `messages`; what cannot be replayed is first kept aside (written
/// and synced before the journal may be removed: when that fails, so does the load).
fn recover(
    journal: &Journal,
    text: &[u8],
    base: &JournalBase,
    messages: &mut Vec<tunacode_protocol::Message>,
) -> Result<(usize, Option<KeptAside>), StoreError> {
    let replay = replay_journal(text, base, messages);
    let Some(reason) = replay.problem else {
        return Ok((replay.applied, None));
    };
    let bytes = match &replay.header {
        Some(header) => {
            let mut bytes = header.clone();
            bytes.push(b'\n');
            for line in &replay.kept {
                bytes.extend_from_slice(line);
                bytes.push(b'\n');
            }
            bytes
        }
        // The whole journal, exactly as it was.
        None => text.to_vec(),
    };
    let path = journal.keep_aside(&bytes)?;
    let kept = KeptAside {
        path,
        lines: replay.kept.len(),
        reason,
    };
    Ok((replay.applied, Some(kept)))
}

/// A writer that counts what passes through it (the checkpoint's size, for its journal's base).
/// Written by hand: twenty lines, where a crate would be a dependency for one counter.
struct CountingWriter<W> {
    inner: W,
    count: usize,
}

impl<W> CountingWriter<W> {
    fn new(inner: W) -> Self {
        CountingWriter { inner, count: 0 }
    }
}

impl<W: std::io::Write> std::io::Write for CountingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count += n;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
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
    // Checked as UTF-8 once, the text is read without checking each of its strings again; text that
    // is not UTF-8 is read as bytes, for serde_json's error with its position.
    let mut file: SessionFile = match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text)?,
        Err(_) => serde_json::from_slice(bytes)?,
    };
    // Read by doubling, the list may hold room for most as many messages again (a long session's:
    // 50 KB of nothing).
    Arc::make_mut(&mut file.messages).shrink_to_fit();
    if crate::legacy_v02::is_v02(&file.messages) {
        let messages = std::mem::take(Arc::make_mut(&mut file.messages));
        file.messages = Arc::new(crate::legacy_v02::convert(
            messages,
            file.extra.get("compaction"),
        ));
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
#[path = "session_store_tests.rs"]
mod tests;
