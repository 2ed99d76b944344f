//! A session's summary (what a listing shows: id, time, model, size, first prompt, a preview, what
//! it was forked from) and its sidecar: `<session>.summary.json`, written with every save under the
//! session file's size and time, so the first listing of a project reads a few hundred bytes per
//! session instead of the whole file (a sidecar that does not match its file is ignored and the file
//! read, as for one written before sidecars existed).

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};
use tunacode_protocol::runtime::{ForkOrigin, SessionSummary};
use tunacode_protocol::{Message, Part, content_to_text};

use crate::session_file::SessionFile;

/// The end of a sidecar's name.
pub(crate) const SIDECAR_SUFFIX: &str = ".summary.json";

/// A summary under the size and time of the session file it was made from.
#[derive(Debug, Serialize, Deserialize)]
struct Sidecar {
    len: u64,
    modified_ns: u64,
    summary: SessionSummary,
}

fn sidecar_path(session_file: &Path) -> Option<PathBuf> {
    let name = session_file.file_stem()?.to_str()?;
    Some(session_file.with_file_name(format!("{name}{SIDECAR_SUFFIX}")))
}

/// Writes the sidecar of `file`, just saved at `path` (a failure only costs the next first
/// listing a read of the file).
pub(crate) fn write_sidecar(path: &Path, file: &SessionFile) {
    let (Some(sidecar), Ok(meta)) = (sidecar_path(path), std::fs::metadata(path)) else {
        return;
    };
    let modified_ns = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    let record = Sidecar {
        len: meta.len(),
        modified_ns,
        summary: summarize(file, path.to_path_buf()),
    };
    if let Ok(bytes) = serde_json::to_vec(&record) {
        let _ = write_unsynced(&sidecar, &bytes);
    }
}

/// Replaces `path` with `bytes` (0600) by a rename, without waiting for the disk: the sidecar is a
/// cache, and one lost in a crash only costs a read of its session.
fn write_unsynced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-summary-")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The summary of the session file at `path` from its sidecar, when the sidecar was written for
/// exactly this file (`len` bytes, modified at `modified_ns`).
pub(crate) fn read_sidecar(path: &Path, len: u64, modified_ns: u64) -> Option<SessionSummary> {
    let bytes = std::fs::read(sidecar_path(path)?).ok()?;
    let record: Sidecar = serde_json::from_slice(&bytes).ok()?;
    // What it was forked from is read now: the tree is written after the session file.
    (record.len == len && record.modified_ns == modified_ns).then(|| SessionSummary {
        path: path.to_path_buf(),
        parent: fork_origin(path),
        ..record.summary
    })
}

/// A session file's summary: its id, time, model, size, first prompt and a short preview.
pub(crate) fn summarize(file: &SessionFile, path: PathBuf) -> SessionSummary {
    let title = file
        .messages
        .iter()
        .filter(|m| m.is_request())
        .flat_map(|m| m.parts.iter())
        .find_map(|p| match p {
            Part::UserPrompt(u) => Some(content_to_text(&u.content)),
            _ => None,
        })
        .unwrap_or_default();
    SessionSummary {
        session_id: file.session_id.clone(),
        last_modified: file.last_modified.clone(),
        current_model: file.current_model.clone(),
        message_count: file.messages.len(),
        title: first_line(&title, 60),
        preview: preview_of(&file.messages),
        parent: fork_origin(&path),
        path,
    }
}

/// The session and prompt a session was forked from (or whose sub-agent it is), from its tree file
/// beside it.
fn fork_origin(session_file: &Path) -> Option<ForkOrigin> {
    /// The one field of a tree file a listing needs.
    #[derive(Deserialize)]
    struct Tree {
        #[serde(default)]
        parent: Option<ForkOrigin>,
    }
    let name = session_file.file_stem()?.to_str()?;
    let bytes = std::fs::read(session_file.with_file_name(format!("{name}.tree.json"))).ok()?;
    serde_json::from_slice::<Tree>(&bytes).ok()?.parent
}

fn first_line(text: &str, max: usize) -> String {
    text.lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(max)
        .collect()
}

/// The first messages of a session, one short line each.
fn preview_of(messages: &[Message]) -> String {
    let mut text = String::new();
    for m in messages.iter().filter(|m| !m.is_legacy()).take(8) {
        for p in &m.parts {
            let line = match p {
                Part::UserPrompt(u) => format!("› {}", content_to_text(&u.content)),
                Part::Text(t) => t.content.clone(),
                Part::ToolCall(c) => format!("  ⚙ {}", c.tool_name),
                _ => continue,
            };
            text.push_str(&first_line(&line, 200));
            text.push('\n');
        }
    }
    text
}
