//! The prompt history of a project, navigated like a shell's (Up older, Down newer, then back to the
//! draft) and kept in `<dir>/<project_id>.jsonl`: one JSON string per line, appended to, compacted to
//! the last [`MAX_HISTORY_ENTRIES`] when it grows past [`COMPACT_AFTER_LINES`] lines.

use std::io;
use std::path::{Path, PathBuf};

use super::history_file::HistoryWriter;

/// The most entries kept.
pub const MAX_HISTORY_ENTRIES: usize = 1_000;

/// The file is rewritten with the last [`MAX_HISTORY_ENTRIES`] entries once it has more lines than this.
pub const COMPACT_AFTER_LINES: usize = 2_000;

/// The input history of one project.
#[derive(Debug, Clone, Default)]
pub struct InputHistory {
    /// The history file; `None` keeps the history in memory only.
    path: Option<PathBuf>,
    /// Writes the file off the UI thread (with `path`).
    writer: Option<HistoryWriter>,
    /// Oldest first.
    entries: Vec<String>,
    /// Lines in the file (including unreadable ones), to know when to compact.
    file_lines: usize,
    /// The entry shown while navigating.
    position: Option<usize>,
    /// The input as it was before the first Up.
    draft: Option<String>,
}

impl InputHistory {
    /// A history that is never written to disk.
    pub fn in_memory() -> Self {
        Self::default()
    }

    /// Loads the history of `project_id` from `<dir>/<project_id>.jsonl` (`dir` is
    /// `<data dir>/tunacode/history`). A missing or unreadable file gives an empty history; lines that
    /// are not a JSON string are skipped. The file is never rewritten here.
    pub fn load(dir: &Path, project_id: &str) -> Self {
        let path = dir.join(format!("{project_id}.jsonl"));
        let mut history = InputHistory {
            path: Some(path.clone()),
            writer: Some(HistoryWriter::spawn(path.clone())),
            ..Self::default()
        };
        let text = match std::fs::read(&path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return history,
            Err(e) => {
                tracing::warn!("could not read the input history {}: {e}", path.display());
                return history;
            }
        };
        for line in text.lines() {
            history.file_lines += 1;
            match serde_json::from_str::<String>(line) {
                Ok(entry) => history.entries.push(entry),
                Err(_) if line.trim().is_empty() => {}
                Err(e) => tracing::debug!("skipping a corrupt input history line: {e}"),
            }
        }
        let excess = history.entries.len().saturating_sub(MAX_HISTORY_ENTRIES);
        history.entries.drain(..excess);
        history
    }

    /// The history file, if the history is persisted.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether Up has moved into the history (and Down has not yet come back to the draft).
    pub fn is_navigating(&self) -> bool {
        self.position.is_some()
    }

    /// Records a submitted input and ends navigation. Blank inputs and a repeat of the latest entry are
    /// not stored. The file is written on the writer thread, never on the caller's; a write error is
    /// logged (and reported by [`InputHistory::flush`]), the entry kept in memory.
    pub fn push(&mut self, entry: &str) {
        self.reset_navigation();
        if entry.trim().is_empty() || self.entries.last().is_some_and(|last| last == entry) {
            return;
        }
        self.entries.push(entry.to_string());
        let excess = self.entries.len().saturating_sub(MAX_HISTORY_ENTRIES);
        self.entries.drain(..excess);
        let Some(writer) = &self.writer else {
            return;
        };
        if self.file_lines + 1 > COMPACT_AFTER_LINES {
            writer.rewrite(self.entries.clone());
            self.file_lines = self.entries.len();
        } else {
            writer.append(entry.to_string());
            self.file_lines += 1;
        }
    }

    /// Waits until every entry pushed so far is written; the first write error since the last flush,
    /// if any (the entries stay in memory either way).
    pub fn flush(&self) -> io::Result<()> {
        match &self.writer {
            Some(writer) => writer.flush(),
            None => Ok(()),
        }
    }

    /// Moves to the next older entry and returns it; the first Up saves `current_draft`. `None` when
    /// there is nothing older (the input stays as it is).
    pub fn up(&mut self, current_draft: &str) -> Option<&str> {
        let next = match self.position {
            None if self.entries.is_empty() => return None,
            None => {
                self.draft = Some(current_draft.to_string());
                self.entries.len() - 1
            }
            Some(0) => return None,
            Some(p) => p - 1,
        };
        self.position = Some(next);
        self.entries.get(next).map(String::as_str)
    }

    /// Moves to the next newer entry and returns it; past the newest, navigation ends and the saved
    /// draft comes back. `None` when not navigating.
    pub fn down(&mut self) -> Option<String> {
        let position = self.position?;
        if position + 1 < self.entries.len() {
            self.position = Some(position + 1);
            return self.entries.get(position + 1).cloned();
        }
        self.position = None;
        Some(self.draft.take().unwrap_or_default())
    }

    /// Ends navigation (e.g. when the user edits a recalled entry), forgetting the saved draft.
    pub fn reset_navigation(&mut self) {
        self.position = None;
        self.draft = None;
    }
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
