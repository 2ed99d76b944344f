//! Exporting a session: Markdown to read, versioned JSON that `tunacode import` restores as a new
//! session, and HTML (`export_html.rs`); secrets redacted in all three (`redact.rs`). The JSON
//! holds the session file's keys except where it lives (its id, project and folder), and its tree
//! without the workspace snapshots (they exist only in this machine's shadow store), so an import
//! exported again gives the same bytes.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tunacode_protocol::runtime::ExportFormat;
use tunacode_protocol::{Part, Usage, content_to_text};
use tunacode_store::{SessionFile, SessionTree};

use super::redact::{redact_text, redact_value};
use crate::session::Session;

/// The version of the JSON export.
pub const EXPORT_VERSION: u32 = 1;

/// Why an export or import failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Writing or reading a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a TunaCode export this version reads.
    #[error("{0}")]
    NotAnExport(String),
}

/// The JSON export.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Exported {
    /// [`EXPORT_VERSION`].
    pub(crate) tunacode_export: u32,
    /// The session file's keys but its id, project and folder.
    pub(crate) session: Map<String, Value>,
    /// Its tree, without snapshots or the redo point.
    pub(crate) tree: SessionTree,
}

/// `file` and `tree` in `format`, secrets redacted.
pub fn export(file: &SessionFile, tree: &SessionTree, format: ExportFormat) -> String {
    match format {
        ExportFormat::Json => export_json(file, tree),
        ExportFormat::Md => markdown(file, tree),
        ExportFormat::Html => super::export_html::html(&markdown(file, tree), &title(file)),
    }
}

/// The current session written to `path` (relative to `cwd`), or, without one, to
/// `<exports>/tunacode-<session>.<ext>` (the data dir: not the workspace, where the model reads and
/// `git add .` would take it). Where it went.
pub fn export_to_file(
    session: &Session,
    format: ExportFormat,
    path: Option<&str>,
    (cwd, exports): (&Path, &Path),
) -> Result<PathBuf, ExportError> {
    let path = match path.filter(|p| !p.trim().is_empty()) {
        Some(path) => cwd.join(path),
        None => {
            tunacode_store::private_dir(exports).map_err(|source| ExportError::Io {
                path: exports.to_path_buf(),
                source,
            })?;
            exports.join(format!("tunacode-{}.{}", session.id, format.extension()))
        }
    };
    let text = export(&session.to_file(), &session.tree, format);
    write_private_file(&path, text.as_bytes())?;
    Ok(path)
}

/// Writes `bytes` to `path` privately (mode 0600) and atomically: a temporary file beside it,
/// renamed over it, so a symbolic link at `path` is replaced, never written through.
pub fn write_private_file(path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    tunacode_store::write_file_atomically(path, bytes)
        .map_err(|(path, source)| ExportError::Io { path, source })
}

fn export_json(file: &SessionFile, tree: &SessionTree) -> String {
    let mut session = match serde_json::to_value(file) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    for key in ["session_id", "project_id", "working_directory"] {
        session.remove(key);
    }
    let mut tree = tree.clone();
    tree.redo = None;
    for node in &mut tree.nodes {
        node.before = None;
        node.after = None;
    }
    let mut value = serde_json::to_value(Exported {
        tunacode_export: EXPORT_VERSION,
        session,
        tree,
    })
    .unwrap_or_default();
    redact_value(&mut value);
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

fn title(file: &SessionFile) -> String {
    let first = file
        .messages
        .iter()
        .flat_map(|m| m.parts.iter())
        .find_map(|p| match p {
            Part::UserPrompt(u) => Some(content_to_text(&u.content)),
            _ => None,
        })
        .unwrap_or_default();
    let line = first
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(80)
        .collect::<String>();
    redact_text(&format!("TunaCode session: {line}"))
}

/// The transcript as Markdown: the session's figures, then each message's parts in order.
fn markdown(file: &SessionFile, tree: &SessionTree) -> String {
    let mut out = format!("# {}\n\n", title(file));
    out.push_str(&format!(
        "- Session: `{}`\n- Model: `{}`\n- Created: {}\n- Last saved: {}\n- Folder: `{}`\n",
        file.session_id,
        file.current_model,
        file.created_at,
        file.last_modified,
        file.working_directory
    ));
    out.push_str(&usage_line(&file.session_total_usage));
    if let Some(parent) = &tree.parent {
        out.push_str(&format!(
            "- Forked from session `{}` after prompt {}\n",
            parent.session_id, parent.prompt
        ));
    }
    out.push('\n');
    let mut prompt = 0;
    for message in file.messages.iter() {
        for part in &message.parts {
            out.push_str(&part_markdown(part, &mut prompt));
        }
    }
    if !tree.events.is_empty() {
        out.push_str("## Rewinds and forks\n\n");
        for event in &tree.events {
            let at = event
                .prompt
                .map(|p| format!(" prompt {p}"))
                .unwrap_or_default();
            let detail = event
                .detail
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            out.push_str(&format!("- {} {}{at}{detail}\n", event.time, event.kind));
        }
    }
    redact_text(&out)
}

fn usage_line(usage: &Usage) -> String {
    format!(
        "- Usage: {} input tokens ({} cached), {} output tokens, ${:.4}\n",
        usage.request_tokens, usage.cached_tokens, usage.response_tokens, usage.cost
    )
}

fn part_markdown(part: &Part, prompt: &mut usize) -> String {
    match part {
        Part::UserPrompt(u) => {
            *prompt += 1;
            let text = content_to_text(&u.content);
            let quoted: Vec<String> = text.lines().map(|l| format!("> {l}")).collect();
            format!("## Prompt {prompt}\n\n{}\n\n", quoted.join("\n"))
        }
        Part::Text(t) if !t.content.trim().is_empty() => format!("{}\n\n", t.content.trim_end()),
        Part::ToolCall(call) => {
            let args = serde_json::to_string_pretty(&call.args_object().unwrap_or_default())
                .unwrap_or_default();
            format!(
                "**Tool call** `{}`\n\n{}\n",
                call.tool_name,
                fenced("json", &args)
            )
        }
        Part::ToolReturn(ret) => format!(
            "**Result** of `{}`\n\n{}\n",
            ret.tool_name,
            fenced("", &content_to_text(&ret.content))
        ),
        _ => String::new(),
    }
}

/// `text` in a code fence longer than any run of backticks inside it.
fn fenced(lang: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}{lang}\n{}\n{fence}\n", text.trim_end_matches('\n'))
}
