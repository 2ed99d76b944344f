//! `settings.rewind`: how the workspace is recorded for rewind, e.g.
//! `{"max_file_mb": 16, "exclude": ["data/"], "snapshot_wait_ms": 2000}`.

use serde::Deserialize;

/// Bounds of the workspace snapshots taken before and after each turn.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RewindConfig {
    /// Files larger than this many MiB are recorded by their size and time only (they cannot be
    /// restored).
    pub max_file_mb: u64,
    /// Folders or files (gitignore patterns, relative to the workspace) never recorded.
    pub exclude: Vec<String>,
    /// How long the first change of a turn waits for its snapshot (ms) before going on while the
    /// snapshot finishes in the background.
    pub snapshot_wait_ms: u64,
}

impl Default for RewindConfig {
    fn default() -> Self {
        RewindConfig {
            max_file_mb: 16,
            exclude: Vec::new(),
            snapshot_wait_ms: 2000,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_keys_keep_their_defaults_and_typos_are_refused() {
        let config: RewindConfig = serde_json::from_str(r#"{"max_file_mb": 2}"#).unwrap();
        assert_eq!(config.max_file_mb, 2);
        assert_eq!(config.snapshot_wait_ms, 2000);
        let err = serde_json::from_str::<RewindConfig>(r#"{"max_file": 2}"#).unwrap_err();
        assert!(
            err.to_string().contains("unknown field `max_file`"),
            "{err}"
        );
    }
}
