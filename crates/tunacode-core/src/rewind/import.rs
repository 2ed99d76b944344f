//! Importing a JSON export as a new session of the current project: its own id, this folder, the
//! exported conversation, figures and tree as they were.

use std::path::Path;

use serde_json::Value;
use tunacode_store::{SessionFile, SessionStore, project_id};

use super::export::{EXPORT_VERSION, ExportError, Exported};

/// Reads the export at `path` and saves it as a new session of `cwd`; its id.
pub fn import(path: &Path, store: &SessionStore, cwd: &Path) -> Result<String, ExportError> {
    let bytes = std::fs::read(path).map_err(|source| ExportError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let not = |why: String| ExportError::NotAnExport(format!("{}: {why}", path.display()));
    let exported: Exported = serde_json::from_slice(&bytes).map_err(|e| {
        not(format!(
            "not a TunaCode JSON export (line {}, column {}: {e})",
            e.line(),
            e.column()
        ))
    })?;
    if exported.tunacode_export != EXPORT_VERSION {
        return Err(not(format!(
            "export version {} (this TunaCode reads version {EXPORT_VERSION})",
            exported.tunacode_export
        )));
    }
    let id = uuid::Uuid::new_v4().to_string();
    // Snapshots exist only in this machine's shadow store: an export names none (a file that does
    // could point a rewind at another session's files).
    let mut tree = exported.tree;
    tree.redo = None;
    for node in &mut tree.nodes {
        node.before = None;
        node.after = None;
    }
    let mut session = exported.session;
    session.insert("session_id".into(), Value::String(id.clone()));
    session.insert("project_id".into(), Value::String(project_id(cwd)));
    session.insert(
        "working_directory".into(),
        Value::String(cwd.display().to_string()),
    );
    let file: SessionFile =
        serde_json::from_value(Value::Object(session)).map_err(|e| not(e.to_string()))?;
    let store_error = |e: tunacode_store::StoreError| ExportError::NotAnExport(e.to_string());
    store.save(&file).map_err(store_error)?;
    store
        .save_tree(&file.project_id, &id, &tree)
        .map_err(store_error)?;
    Ok(id)
}
