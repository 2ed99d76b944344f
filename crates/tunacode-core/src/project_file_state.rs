//! [`ProjectFileState`]: a repository's file that runs commands (its checks, its hooks), as a session
//! found it: approved for this content or not, or unusable.

use std::path::PathBuf;

/// A repository's checks or hooks file, as the session found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectFileState {
    /// The file.
    pub file: PathBuf,
    /// Whether the user approved this content of it.
    pub approved: bool,
    /// Its text (what an approval covers).
    pub text: String,
    /// What it declares (checks' names, hooks' events and commands).
    pub names: Vec<String>,
    /// Why it cannot be used (malformed, a bad glob), when it cannot.
    pub problem: Option<String>,
}
