//! What front ends look up before a session is open: a project's saved sessions (an editor's
//! `session/list`) and the model catalogue (pickers, setup). Decided here, read off the async threads.

use std::path::PathBuf;

use tunacode_protocol::runtime::{ModelCatalogue, SessionSummary};
use tunacode_store::{Paths, SessionStore, project_id};

use crate::runtime::handle::Runtime;

impl Runtime {
    /// The saved sessions of `cwd`'s project (the process's working directory's when `None`), newest
    /// first, with the directory they were listed for.
    pub async fn list_sessions(
        paths: &Paths,
        cwd: Option<PathBuf>,
    ) -> Result<(PathBuf, Vec<SessionSummary>), String> {
        let sessions_dir = paths.sessions_dir.clone();
        tokio::task::spawn_blocking(move || {
            let cwd = match cwd {
                Some(cwd) => cwd,
                None => std::env::current_dir().map_err(|e| e.to_string())?,
            };
            let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
            SessionStore::new(&sessions_dir)
                .list(&project_id(&cwd))
                .map(|(sessions, _unreadable)| (cwd, sessions))
                .map_err(|e| e.to_string())
        })
        .await
        .unwrap_or_else(|e| Err(e.to_string()))
    }

    /// The model catalogue of the user's config: bundled, the refreshed cache, then the config's
    /// `models` overrides.
    pub async fn catalogue(paths: &Paths) -> Result<ModelCatalogue, String> {
        let paths = paths.clone();
        tokio::task::spawn_blocking(move || crate::setup::load_catalogue(&paths))
            .await
            .unwrap_or_else(|e| Err(e.to_string()))
    }

    /// Whether `id` has the shape of a session id (what a store file can be named).
    pub fn is_session_id(id: &str) -> bool {
        tunacode_store::is_session_id(id)
    }
}
