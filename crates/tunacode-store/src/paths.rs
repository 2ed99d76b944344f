//! Where TunaCode keeps its files: the config file and the sessions directory.

use std::path::{Path, PathBuf};

use etcetera::BaseStrategy;
use sha2::{Digest, Sha256};

use crate::error::StoreError;

/// The locations of TunaCode's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// The user's config file.
    pub config_file: PathBuf,
    /// The root of session files (`<data>/tunacode/sessions`).
    pub sessions_dir: PathBuf,
    /// Where logs go (`<state>/tunacode`).
    pub log_dir: PathBuf,
    /// The refreshed model catalogue (`<data>/tunacode/models.json`).
    pub models_cache: PathBuf,
    /// The projects whose `.mcp.json` the user approved (`<data>/tunacode/mcp_approvals.json`).
    pub mcp_approvals: PathBuf,
}

impl Paths {
    /// The default paths: `$TUNACODE_CONFIG` or `$XDG_CONFIG_HOME/tunacode.json` (`~/.config/tunacode.json`),
    /// sessions under `$XDG_DATA_HOME/tunacode/sessions`, logs under `$XDG_STATE_HOME/tunacode`.
    pub fn from_env() -> Result<Self, StoreError> {
        let base =
            etcetera::choose_base_strategy().map_err(|e| StoreError::NoHome(e.to_string()))?;
        let config_file = match std::env::var_os("TUNACODE_CONFIG") {
            Some(p) if !p.is_empty() => PathBuf::from(p),
            _ => base.config_dir().join("tunacode.json"),
        };
        let state = base.state_dir().unwrap_or_else(|| base.data_dir());
        Ok(Paths {
            config_file,
            sessions_dir: base.data_dir().join("tunacode").join("sessions"),
            models_cache: base.data_dir().join("tunacode").join("models.json"),
            mcp_approvals: base.data_dir().join("tunacode").join("mcp_approvals.json"),
            log_dir: state.join("tunacode"),
        })
    }
}

impl Paths {
    /// The user's own TunaCode folder beside the config file (`~/.config/tunacode`): instruction
    /// files, skills, commands.
    pub fn user_dir(&self) -> PathBuf {
        self.config_file
            .parent()
            .map_or_else(|| PathBuf::from("tunacode"), |dir| dir.join("tunacode"))
    }

    /// TunaCode's data directory (`<data>/tunacode`), where sessions, checkpoints and approvals live.
    pub fn data_dir(&self) -> PathBuf {
        self.sessions_dir
            .parent()
            .map_or_else(|| self.sessions_dir.clone(), Path::to_path_buf)
    }
}

/// A stable id for a working directory: 16 hex chars of the SHA-256 of its canonical path.
pub fn project_id(working_directory: &Path) -> String {
    let canonical = std::fs::canonicalize(working_directory)
        .unwrap_or_else(|_| working_directory.to_path_buf());
    let digest = Sha256::digest(canonical.to_string_lossy().as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_id_is_stable_and_distinguishes_directories() {
        let a = project_id(Path::new("/tmp"));
        assert_eq!(a.len(), 16);
        assert_eq!(a, project_id(Path::new("/tmp/.")));
        assert_ne!(a, project_id(Path::new("/")));
    }
}
