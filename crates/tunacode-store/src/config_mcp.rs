//! `tunacode mcp add` / `remove`: edits of the config's `mcpServers`, merged into the file as raw
//! JSON like first-run setup does, so every other key (and the order of keys) survives, a malformed
//! file is refused and left as it was, and the write is atomic with mode 0600.

use std::path::Path;

use serde_json::{Map, Value};

use crate::config_write::{object_at, read_raw, write_atomic, write_target};
use crate::error::StoreError;

/// The config's key for MCP servers.
const KEY: &str = "mcpServers";

/// Adds (or replaces) the server `name` with `entry`. Returns whether one of that name was replaced.
pub fn add_mcp_server(path: &Path, name: &str, entry: Value) -> Result<bool, StoreError> {
    let target = write_target(path);
    let mut root = read_raw(&target)?;
    let servers = object_at(&target, &mut root, KEY)?;
    let replaced = servers.insert(name.to_string(), entry).is_some();
    write_atomic(&target, &Value::Object(root))?;
    Ok(replaced)
}

/// Removes the server `name`. Returns whether there was one (the file is not written when not).
pub fn remove_mcp_server(path: &Path, name: &str) -> Result<bool, StoreError> {
    let target = write_target(path);
    let mut root = read_raw(&target)?;
    let removed = match root.get_mut(KEY) {
        Some(Value::Object(servers)) => servers.shift_remove(name).is_some(),
        _ => false,
    };
    if removed {
        write_atomic(&target, &Value::Object(root))?;
    }
    Ok(removed)
}

/// A file's text and the servers it names.
pub type McpFile = (String, Map<String, Value>);

/// The `mcpServers` object of a file shaped like `.mcp.json` (`{"mcpServers": {…}}`), with the file's
/// text; a missing file is `None`, a malformed one an error naming the line and column.
pub fn read_mcp_file(path: &Path) -> Result<Option<McpFile>, StoreError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::io(path, e)),
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| StoreError::malformed(path, &e))?;
    match value.get(KEY) {
        Some(Value::Object(servers)) => Ok(Some((text.clone(), servers.clone()))),
        None => Ok(Some((text.clone(), Map::new()))),
        Some(_) => Err(crate::config_write::shape_error(
            path,
            "`mcpServers` must be a JSON object",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn add_and_remove_keep_the_other_keys_and_refuse_a_malformed_file() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("tunacode.json");
        std::fs::write(&path, r#"{"zeta": 1, "default_model": "openai:gpt-4.1"}"#).expect("write");
        assert!(!add_mcp_server(&path, "fs", json!({"command": "npx"})).expect("added"));
        assert!(add_mcp_server(&path, "fs", json!({"command": "node"})).expect("replaced"));
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        assert_eq!(
            v,
            json!({"zeta": 1, "default_model": "openai:gpt-4.1", "mcpServers": {"fs": {"command": "node"}}})
        );
        assert!(remove_mcp_server(&path, "fs").expect("removed"));
        assert!(!remove_mcp_server(&path, "fs").expect("nothing to remove"));

        std::fs::write(&path, "{\"mcpServers\": {").expect("write");
        let err = add_mcp_server(&path, "x", json!({"command": "y"})).expect_err("malformed");
        assert!(err.to_string().contains("tunacode.json"), "{err}");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "{\"mcpServers\": {"
        );
    }

    #[test]
    fn a_project_file_reads_its_servers() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join(".mcp.json");
        assert_eq!(read_mcp_file(&path).expect("missing is fine"), None);
        std::fs::write(&path, r#"{"mcpServers": {"a": {"command": "x"}}}"#).expect("write");
        let (_, servers) = read_mcp_file(&path).expect("read").expect("present");
        assert_eq!(servers.keys().collect::<Vec<_>>(), ["a"]);
        std::fs::write(&path, r#"{"mcpServers": []}"#).expect("write");
        assert!(read_mcp_file(&path).is_err());
    }
}
