//! `settings.lsp`: the language servers whose diagnostics follow each edit. `false` turns them off;
//! an object sets the wait and names servers, e.g. `{"wait_ms": 5000, "servers": {"pyright":
//! {"command": ["pyright-langserver", "--stdio"], "extensions": ["py"], "language_id": "python"}}}`.
//! Without servers named, those the repository implies run when their program is installed.

use std::collections::BTreeMap;

use serde::Deserialize;

/// One language server.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LspServerConfig {
    /// The program and its arguments.
    pub command: Vec<String>,
    /// The file extensions it covers (`py`, `rs`).
    pub extensions: Vec<String>,
    /// The language id documents are opened with (default: the first extension).
    #[serde(default)]
    pub language_id: Option<String>,
}

/// The language servers' settings.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "serde_json::Value")]
pub struct LspConfig {
    /// Whether diagnostics follow edits at all.
    pub enabled: bool,
    /// How long to wait for a server's diagnostics after an edit, in milliseconds.
    pub wait_ms: u64,
    /// Servers by name (none: those the repository implies, when installed).
    pub servers: BTreeMap<String, LspServerConfig>,
}

impl Default for LspConfig {
    fn default() -> Self {
        LspConfig {
            enabled: true,
            wait_ms: 3000,
            servers: BTreeMap::new(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LspObject {
    enabled: Option<bool>,
    wait_ms: Option<u64>,
    #[serde(default)]
    servers: BTreeMap<String, LspServerConfig>,
}

/// Read by hand from the value so a misspelt field is named in the error.
impl TryFrom<serde_json::Value> for LspConfig {
    type Error = serde_json::Error;

    fn try_from(value: serde_json::Value) -> Result<Self, Self::Error> {
        let d = LspConfig::default();
        if let serde_json::Value::Bool(enabled) = value {
            return Ok(LspConfig { enabled, ..d });
        }
        let o: LspObject = serde_json::from_value(value)?;
        Ok(LspConfig {
            enabled: o.enabled.unwrap_or(d.enabled),
            wait_ms: o.wait_ms.unwrap_or(d.wait_ms),
            servers: o.servers,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_or_servers_and_a_wait() {
        let off: LspConfig = serde_json::from_str("false").unwrap();
        assert!(!off.enabled);
        let set: LspConfig = serde_json::from_str(
            r#"{"wait_ms": 5000, "servers": {"py": {"command": ["pylsp"], "extensions": ["py"]}}}"#,
        )
        .unwrap();
        assert_eq!((set.enabled, set.wait_ms), (true, 5000));
        assert_eq!(set.servers["py"].command, vec!["pylsp".to_string()]);
        let err = serde_json::from_str::<LspConfig>(r#"{"wait": 1}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("wait"), "{err}");
    }
}
