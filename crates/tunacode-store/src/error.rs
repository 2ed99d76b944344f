//! [`StoreError`]: what can go wrong reading or writing TunaCode's files. Every variant names the file.

use std::path::PathBuf;

/// A failed read or write of a config or session file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file is not valid JSON or has a value of the wrong type.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// Reading or writing failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// No session with that id in this project.
    #[error("no session `{id}` in {}", dir.display())]
    SessionNotFound {
        /// The id asked for.
        id: String,
        /// Where it was looked for.
        dir: PathBuf,
    },
    /// A shortened id that begins more than one session's id.
    #[error("`{id}` names {count} sessions; give more of the id")]
    AmbiguousSession {
        /// The id asked for.
        id: String,
        /// How many sessions it begins.
        count: usize,
    },
    /// No home directory could be found for the default paths.
    #[error("cannot find a home directory: {0}")]
    NoHome(String),
}

impl StoreError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        StoreError::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn malformed(path: impl Into<PathBuf>, err: &serde_json::Error) -> Self {
        let text = err.to_string();
        // serde_json appends " at line L column C"; the position is reported separately.
        let message = match text.rfind(" at line ") {
            Some(i) => text[..i].to_string(),
            None => text,
        };
        StoreError::Malformed {
            path: path.into(),
            line: err.line(),
            column: err.column(),
            message,
        }
    }
}
