//! Which projects' `.mcp.json` the user approved. A repository can name servers that run programs, so
//! its file is used only once the user approved it, and again after it changes: the approval is kept
//! per file path with a digest of the content it approved, in the data dir (never in the repository).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::config_write::write_atomic;
use crate::error::StoreError;

/// A digest of a project file's content.
pub fn content_digest(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn load(store: &Path) -> BTreeMap<String, String> {
    std::fs::read_to_string(store)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// Whether `file` was approved with exactly this content. An unreadable approvals file approves
/// nothing.
pub fn is_project_mcp_approved(store: &Path, file: &Path, text: &str) -> bool {
    load(store).get(&file.to_string_lossy().into_owned()) == Some(&content_digest(text))
}

/// Records the approval of `file` with this content.
pub fn approve_project_mcp(store: &Path, file: &Path, text: &str) -> Result<(), StoreError> {
    let mut approvals = load(store);
    approvals.insert(file.to_string_lossy().into_owned(), content_digest(text));
    let value = serde_json::to_value(approvals).unwrap_or(Value::Null);
    if let Some(dir) = store.parent().filter(|d| !d.as_os_str().is_empty()) {
        crate::private::private_dir(dir).map_err(|e| StoreError::io(dir, e))?;
    }
    write_atomic(store, &value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_approval_holds_for_the_content_it_saw() {
        let dir = tempfile::tempdir().expect("dir");
        let store = dir.path().join("data").join("mcp_approvals.json");
        let file = dir.path().join("proj").join(".mcp.json");
        assert!(!is_project_mcp_approved(&store, &file, "{}"));
        approve_project_mcp(&store, &file, "{}").expect("saved");
        assert!(is_project_mcp_approved(&store, &file, "{}"));
        let mode = |p: &Path| {
            std::os::unix::fs::PermissionsExt::mode(
                &std::fs::metadata(p).expect("meta").permissions(),
            ) & 0o777
        };
        assert_eq!(mode(&store), 0o600);
        assert_eq!(mode(store.parent().expect("dir")), 0o700);
        assert!(!is_project_mcp_approved(
            &store,
            &file,
            "{\"mcpServers\": {}}"
        ));
    }
}
