//! [`SessionTree`]: a session's prompts as a tree of turns. Each node is one user prompt: where it
//! is in the conversation (a marker written on the prompt's part) and the workspace snapshots
//! taken before the turn changed anything and after it ended. A fork names the session and prompt
//! it came from; a rewind leaves a redo point until the next prompt.
//!
//! Stored as `<session_id>.tree.json` beside the session file (written atomically, mode 0600), so
//! the session file keeps exactly the original's keys and stays loadable by the Python TunaCode. A
//! tree file that cannot be read is kept aside and the session opens with an empty tree.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use tunacode_protocol::Message;
pub use tunacode_protocol::runtime::ForkOrigin;

use crate::error::StoreError;
use crate::session_store::SessionStore;

/// The version written in new tree files.
pub const TREE_FORMAT_VERSION: u32 = 1;

/// The turns of one session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionTree {
    /// Format version.
    pub version: u32,
    /// The session and prompt this one was forked from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<ForkOrigin>,
    /// One node per user prompt, in order.
    #[serde(default)]
    pub nodes: Vec<TurnNode>,
    /// Where redo returns to, after a rewind and until the next prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redo: Option<RedoPoint>,
    /// Rewinds, redos and forks, in order (for the record an export keeps).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<TreeEvent>,
}

impl Default for SessionTree {
    fn default() -> Self {
        SessionTree {
            version: TREE_FORMAT_VERSION,
            parent: None,
            nodes: Vec::new(),
            redo: None,
            events: Vec::new(),
        }
    }
}

/// One user prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnNode {
    /// What the user typed.
    pub text: String,
    /// When it was sent (RFC 3339).
    pub time: String,
    /// The `timestamp` written on the prompt's part in the conversation (how the prompt is found
    /// again when messages before it were cleaned or joined).
    pub marker: String,
    /// The workspace before the turn changed anything (`None`: it changed nothing, or no snapshot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Snapshot>,
    /// The workspace as the turn left it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Snapshot>,
    /// The files the turn changed (workspace-relative), once known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

/// A workspace snapshot in the shadow store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Its commit.
    pub commit: String,
    /// Files recorded by metadata only (over the size cap): they cannot be restored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedFile>,
    /// Folders inside the workspace that are repositories of their own: never recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nested: Vec<String>,
    /// It finished after the turn's first change had started (taken in the background).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub late: bool,
}

/// A file a snapshot recorded by its metadata only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedFile {
    /// Workspace-relative path.
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time (nanoseconds since the epoch).
    pub modified: i128,
}

/// What redo returns to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RedoPoint {
    /// The prompt (1-based) the last rewind went back to.
    pub at: usize,
    /// The conversation before the first rewind (`None`: only code was rewound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<Message>>,
    /// The nodes before the first rewind.
    pub nodes: Vec<TurnNode>,
    /// The workspace before the first code rewind (a snapshot commit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// What the rewinds left each file they changed as (a blob id; `None`: removed).
    #[serde(default)]
    pub written: BTreeMap<String, Option<String>>,
}

/// A rewind, redo or fork, for the record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeEvent {
    /// When (RFC 3339).
    pub time: String,
    /// `rewind`, `redo` or `fork`.
    pub kind: String,
    /// The prompt it went to (rewind), or forked at (fork).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<usize>,
    /// `all`, `conversation` or `code` (rewind); the new session's id (fork).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A tree read back.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadedTree {
    /// The tree (empty when there was none, or it could not be read).
    pub tree: SessionTree,
    /// A tree file that could not be read, kept aside here.
    pub kept_aside: Option<(PathBuf, String)>,
}

impl SessionStore {
    /// The tree file of one session.
    pub fn tree_path(&self, project_id: &str, session_id: &str) -> PathBuf {
        self.project_dir(project_id)
            .join(format!("{session_id}.tree.json"))
    }

    /// Reads a session's tree: none yet is an empty tree; one that cannot be read is renamed to
    /// `<file>.corrupt-<time>` (never removed) and an empty tree is returned with where it went.
    pub fn load_tree(&self, project_id: &str, session_id: &str) -> Result<LoadedTree, StoreError> {
        let path = self.tree_path(project_id, session_id);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(LoadedTree::default()),
            Err(e) => return Err(StoreError::io(&path, e)),
        };
        match serde_json::from_slice::<SessionTree>(&bytes) {
            Ok(tree) => Ok(LoadedTree {
                tree,
                kept_aside: None,
            }),
            Err(e) => {
                let problem = StoreError::malformed(&path, &e).to_string();
                let stamp = now_stamp();
                let aside = path.with_extension(format!("json.corrupt-{stamp}"));
                std::fs::rename(&path, &aside).map_err(|e| StoreError::io(&path, e))?;
                Ok(LoadedTree {
                    tree: SessionTree::default(),
                    kept_aside: Some((aside, problem)),
                })
            }
        }
    }

    /// Writes a session's tree atomically (mode 0600).
    pub fn save_tree(
        &self,
        project_id: &str,
        session_id: &str,
        tree: &SessionTree,
    ) -> Result<(), StoreError> {
        let path = self.tree_path(project_id, session_id);
        let json = serde_json::to_vec(tree).map_err(|e| {
            StoreError::io(
                &path,
                std::io::Error::new(std::io::ErrorKind::InvalidData, e),
            )
        })?;
        crate::session_store::write_private_atomically(&self.project_dir(project_id), &path, &json)
    }
}

fn now_stamp() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(text: &str) -> TurnNode {
        TurnNode {
            text: text.into(),
            time: "2026-11-26T00:00:00Z".into(),
            marker: "2026-11-26T00:00:00.000001Z".into(),
            before: Some(Snapshot {
                commit: "abc".into(),
                skipped: vec![SkippedFile {
                    path: "big.bin".into(),
                    size: 1 << 30,
                    modified: 5,
                }],
                nested: vec!["vendor/lib".into()],
                late: true,
            }),
            after: None,
            files: vec!["a.txt".into()],
        }
    }

    #[test]
    fn a_tree_round_trips_beside_the_session_file_and_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        assert_eq!(
            store.load_tree("p", "s").unwrap().tree,
            SessionTree::default()
        );
        let tree = SessionTree {
            parent: Some(ForkOrigin {
                session_id: "o".into(),
                prompt: 2,
                subagent: None,
            }),
            nodes: vec![node("fix it")],
            ..SessionTree::default()
        };
        store.save_tree("p", "s", &tree).unwrap();
        let path = store.tree_path("p", "s");
        assert_eq!(path, dir.path().join("p").join("s.tree.json"));
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&path).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(store.load_tree("p", "s").unwrap().tree, tree);
    }

    #[test]
    fn an_unreadable_tree_is_kept_aside_never_lost() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        std::fs::create_dir_all(dir.path().join("p")).unwrap();
        std::fs::write(
            store.tree_path("p", "s"),
            b"{\"version\": 1, \"nodes\": [ 3",
        )
        .unwrap();
        let loaded = store.load_tree("p", "s").unwrap();
        assert_eq!(loaded.tree, SessionTree::default());
        let (aside, problem) = loaded.kept_aside.expect("kept aside");
        assert!(problem.contains("s.tree.json:1:"), "{problem}");
        assert_eq!(
            std::fs::read(&aside).unwrap(),
            b"{\"version\": 1, \"nodes\": [ 3"
        );
        assert!(!store.tree_path("p", "s").exists());
    }
}
