//! The session journal: `<session_id>.jsonl` beside the session file, one JSON line per completed
//! message (or finished tool result), written as soon as it is complete (so a killed process loses at
//! most the model response that was streaming) and fsync'd by [`Journal::sync`], which the engine runs
//! in the background after each write, coalesced (so a power cut loses at most the lines of the last
//! few milliseconds, and no turn waits for the disk). The session file is the checkpoint: the journal's
//! first line names the checkpoint it follows (its size, message count and save time), so lines that
//! follow an older checkpoint (left by a crash between a save and the journal's removal) are ignored
//! rather than replayed onto the wrong history. Replaying is in `journal_replay.rs`: a line that
//! cannot be replayed is kept aside, never dropped. The session file keeps exactly the original's keys.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tunacode_protocol::{Message, Part};

use crate::error::StoreError;

/// The checkpoint a journal follows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalBase {
    /// The session file's size in bytes.
    pub bytes: u64,
    /// Its number of messages.
    pub messages: usize,
    /// Its `last_modified`.
    pub modified: String,
}

/// A journal's first line.
#[derive(Serialize, Deserialize)]
pub(crate) struct Header {
    pub(crate) base: JournalBase,
}

/// One journal line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// The index in the session's messages it applies to.
    pub at: usize,
    /// What it records.
    #[serde(flatten)]
    pub record: JournalRecord,
}

/// What a journal line records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JournalRecord {
    /// The message at `at` is this one (appended, or replacing one that grew, e.g. a prompt joined to a
    /// trailing request).
    Message(Message),
    /// A finished tool result, added to the request at `at` (created when absent) before the whole
    /// batch of answers is complete.
    ToolResult(Part),
}

/// The journal of one session, open for appending.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: Mutex<Option<File>>,
}

impl Journal {
    /// The journal at `path` (created on the first append, mode 0600).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Journal {
            path: path.into(),
            file: Mutex::new(None),
        }
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends lines after checkpoint `base` (written to the file before returning, so they survive
    /// the process being killed; [`Journal::sync`] makes them survive a power cut); a new journal
    /// starts with the line naming `base`. Blocking: call it off the async threads.
    pub fn append(&self, base: &JournalBase, entries: &[JournalEntry]) -> Result<(), StoreError> {
        let mut slot = self.file.lock().unwrap_or_else(|p| p.into_inner());
        let mut bytes = Vec::new();
        if slot.is_none() {
            let (file, empty) = self.open()?;
            if empty {
                line(&mut bytes, &Header { base: base.clone() }, &self.path)?;
            }
            *slot = Some(file);
        }
        for entry in entries {
            line(&mut bytes, entry, &self.path)?;
        }
        let Some(file) = slot.as_mut() else {
            return Ok(());
        };
        file.write_all(&bytes)
            .map_err(|e| StoreError::io(&self.path, e))
    }

    /// Makes everything written so far durable (fsync). Blocking.
    pub fn sync(&self) -> Result<(), StoreError> {
        let slot = self.file.lock().unwrap_or_else(|p| p.into_inner());
        match slot.as_ref() {
            Some(file) => file.sync_data().map_err(|e| StoreError::io(&self.path, e)),
            None => Ok(()),
        }
    }

    fn open(&self) -> Result<(File, bool), StoreError> {
        if let Some(dir) = self.path.parent() {
            crate::private::private_dir(dir).map_err(|e| StoreError::io(dir, e))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&self.path)
            .map_err(|e| StoreError::io(&self.path, e))?;
        let empty = file
            .metadata()
            .map_err(|e| StoreError::io(&self.path, e))?
            .len()
            == 0;
        Ok((file, empty))
    }

    /// Keeps `bytes` (the part of this journal that could not be replayed) in a new file beside it,
    /// `<journal>.corrupt-<time>` (mode 0600, synced; never removed by TunaCode). Its path. Blocking.
    pub fn keep_aside(&self, bytes: &[u8]) -> Result<PathBuf, StoreError> {
        let stamp: String = crate::session_file::now_rfc3339()
            .chars()
            .filter(|c| !matches!(c, '-' | ':'))
            .collect();
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dir = self.path.parent().unwrap_or(Path::new("."));
        for n in 1..=100 {
            let suffix = if n == 1 {
                String::new()
            } else {
                format!("-{n}")
            };
            let aside = dir.join(format!("{name}.corrupt-{stamp}{suffix}"));
            let mut file = match OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&aside)
            {
                Ok(file) => file,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(StoreError::io(&aside, e)),
            };
            file.write_all(bytes)
                .and_then(|()| file.sync_all())
                .map_err(|e| StoreError::io(&aside, e))?;
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
            return Ok(aside);
        }
        Err(StoreError::io(
            dir,
            std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!("too many {name}.corrupt-{stamp} files"),
            ),
        ))
    }

    /// Empties the journal after a checkpoint included everything in it. Blocking.
    pub fn reset(&self) -> Result<(), StoreError> {
        let mut slot = self.file.lock().unwrap_or_else(|p| p.into_inner());
        *slot = None;
        match std::fs::remove_file(&self.path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(StoreError::io(&self.path, e)),
        }
    }
}

fn line<T: Serialize>(out: &mut Vec<u8>, value: &T, path: &Path) -> Result<(), StoreError> {
    serde_json::to_writer(&mut *out, value).map_err(|e| {
        StoreError::io(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    })?;
    out.push(b'\n');
    Ok(())
}

#[cfg(test)]
#[path = "journal_tests.rs"]
mod tests;
