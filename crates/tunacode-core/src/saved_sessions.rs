//! Rewind, redo, fork, export and import on a project's saved sessions, for the commands that
//! work without a runtime (`tunacode rewind`, `fork`, `export`, `import`): each loads the session
//! (its journal replayed, its tree), works on it and saves it. They never ask: a file the user
//! changed since the agent left it is kept and named in the report.

use std::path::{Path, PathBuf};

use tunacode_protocol::runtime::{ExportFormat, Forked, RewindMode, Rewound, TurnView};
use tunacode_store::{Paths, RewindConfig, SessionStore, project_id};

use crate::checkpoints::Checkpoints;
use crate::rewind::{ExportError, RewindError};
use crate::runtime::SessionChoice;
use crate::runtime::sessions::open;
use crate::session::Session;

/// Why a command on saved sessions failed.
#[derive(Debug, thiserror::Error)]
pub enum SavedError {
    /// A session file could not be read or written.
    #[error(transparent)]
    Store(#[from] tunacode_store::StoreError),
    /// The rewind, redo or fork cannot be done.
    #[error(transparent)]
    Rewind(#[from] RewindError),
    /// The export or import failed.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// No session matches.
    #[error("{0}")]
    NoSession(String),
}

/// A project's saved sessions and its shadow store.
pub struct SavedSessions {
    store: SessionStore,
    checkpoints: Checkpoints,
    cwd: PathBuf,
}

impl SavedSessions {
    /// The sessions of the project in `cwd`.
    pub fn new(paths: &Paths, cwd: &Path, limits: RewindConfig) -> Self {
        SavedSessions {
            store: SessionStore::new(&paths.sessions_dir),
            checkpoints: Checkpoints::new(&paths.data_dir(), cwd).with_limits(limits),
            cwd: cwd.to_path_buf(),
        }
    }

    /// The session `id` names (a unique prefix of one is enough), or the newest.
    pub fn resolve(&self, id: Option<&str>) -> Result<String, SavedError> {
        let (sessions, _) = self.store.list(&project_id(&self.cwd))?;
        let Some(id) = id else {
            return sessions
                .first()
                .map(|s| s.session_id.clone())
                .ok_or_else(|| {
                    SavedError::NoSession(format!("no saved session in {}", self.cwd.display()))
                });
        };
        if sessions.iter().any(|s| s.session_id == id) {
            return Ok(id.to_string());
        }
        let matching: Vec<&str> = sessions
            .iter()
            .map(|s| s.session_id.as_str())
            .filter(|s| s.starts_with(id))
            .collect();
        match matching[..] {
            [one] => Ok(one.to_string()),
            [] => Err(SavedError::NoSession(format!(
                "no session `{id}` in {}",
                self.cwd.display()
            ))),
            _ => Err(SavedError::NoSession(format!(
                "`{id}` names {} sessions; give more of the id",
                matching.len()
            ))),
        }
    }

    fn load(&self, id: &str) -> Result<Session, SavedError> {
        let choice = SessionChoice::Resume(id.to_string());
        Ok(open(&self.store, &self.cwd, "", &choice)?.session)
    }

    fn save(&self, session: &Session, file: bool) -> Result<(), SavedError> {
        if file {
            self.store.save(&session.to_file())?;
        }
        self.store
            .save_tree(&session.project_id, &session.id, &session.tree)?;
        Ok(())
    }

    /// The prompts of session `id`.
    pub fn turns(&self, id: &str) -> Result<Vec<TurnView>, SavedError> {
        let session = self.load(id)?;
        Ok(crate::rewind::turns(&session))
    }

    /// Rewinds session `id` to before prompt `to`.
    pub fn rewind(&self, id: &str, to: usize, mode: RewindMode) -> Result<Rewound, SavedError> {
        let mut session = self.load(id)?;
        let rewound = crate::rewind::rewind(&self.checkpoints, &mut session, to, mode, "rewind")?;
        self.save(&session, mode.conversation())?;
        Ok(rewound)
    }

    /// Puts back the files of session `id`'s `to`-th last prompt that changed them.
    pub fn undo(&self, id: &str, to: usize) -> Result<Rewound, SavedError> {
        let mut session = self.load(id)?;
        let rewound = crate::rewind::undo(&self.checkpoints, &mut session, to)?;
        self.save(&session, false)?;
        Ok(rewound)
    }

    /// Returns session `id` to where it was before its rewinds.
    pub fn redo(&self, id: &str) -> Result<Rewound, SavedError> {
        let mut session = self.load(id)?;
        let rewound = crate::rewind::redo(&self.checkpoints, &mut session)?;
        self.save(&session, true)?;
        Ok(rewound)
    }

    /// Forks session `id` after prompt `at` (default: the last) into a new saved session.
    pub fn fork(&self, id: &str, at: Option<usize>) -> Result<Forked, SavedError> {
        let mut original = self.load(id)?;
        let forked = crate::rewind::fork(&original, at)?;
        let prompt = forked.tree.parent.as_ref().map_or(0, |p| p.prompt);
        self.save(&forked, true)?;
        crate::rewind::record_fork(&mut original, &forked, prompt);
        self.save(&original, false)?;
        Ok(Forked {
            session_id: forked.id,
            parent: original.id,
            prompt,
        })
    }

    /// Session `id` in `format`, secrets redacted (its file as saved, not stamped anew).
    pub fn export(&self, id: &str, format: ExportFormat) -> Result<String, SavedError> {
        let project = project_id(&self.cwd);
        let file = self.store.load(&project, id)?.file;
        let tree = self.store.load_tree(&project, id)?.tree;
        Ok(crate::rewind::export(&file, &tree, format))
    }

    /// Imports the JSON export at `path` as a new session; its id.
    pub fn import(&self, path: &Path) -> Result<String, SavedError> {
        Ok(crate::rewind::import(path, &self.store, &self.cwd)?)
    }
}
