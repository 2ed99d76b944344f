//! [`SessionFile`]: the persisted session, with the keys of seed 001's persistence contract.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tunacode_protocol::{Message, Usage};

/// The version written in new session files.
pub const SESSION_FORMAT_VERSION: u32 = 1;

/// The current time as RFC 3339 (UTC, seconds), as stored in session files.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// One session as stored on disk. Keys this version does not know are kept and written back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionFile {
    /// Format version.
    pub version: u32,
    /// The session's id (part of the file name).
    pub session_id: String,
    /// The project (working directory) it belongs to.
    pub project_id: String,
    /// When it was created (RFC 3339).
    pub created_at: String,
    /// When it was last saved (RFC 3339).
    pub last_modified: String,
    /// The working directory.
    pub working_directory: String,
    /// `provider:model` last used.
    pub current_model: String,
    /// Estimated tokens of the history.
    #[serde(default)]
    pub total_tokens: u64,
    /// Usage of every model call so far.
    #[serde(default)]
    pub session_total_usage: Usage,
    /// Recorded reasoning.
    #[serde(default)]
    pub thoughts: Vec<Value>,
    /// The conversation, shared with the session it is saved from (saving never copies it).
    #[serde(default)]
    pub messages: std::sync::Arc<Vec<Message>>,
    /// Keys kept as loaded.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A small session of project `proj` for tests: one prompt, saved at `modified`.
#[cfg(test)]
pub(crate) fn test_session(id: &str, modified: &str) -> SessionFile {
    SessionFile {
        version: SESSION_FORMAT_VERSION,
        session_id: id.into(),
        project_id: "proj".into(),
        created_at: modified.into(),
        last_modified: modified.into(),
        working_directory: "/w".into(),
        current_model: "openai:m".into(),
        total_tokens: 0,
        session_total_usage: Usage::default(),
        thoughts: vec![],
        messages: vec![Message::user("fix the bug\nplease")].into(),
        extra: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn has_exactly_the_seed_keys_and_round_trips() {
        let file = SessionFile {
            version: SESSION_FORMAT_VERSION,
            session_id: "s".into(),
            project_id: "p".into(),
            created_at: "2026-11-22T00:00:00Z".into(),
            last_modified: "2026-11-22T00:00:01Z".into(),
            working_directory: "/w".into(),
            current_model: "openai:gpt-4.1".into(),
            total_tokens: 12,
            session_total_usage: Usage {
                request_tokens: 3,
                ..Usage::default()
            },
            thoughts: vec![json!("hm")],
            messages: vec![Message::user("hi")].into(),
            extra: Default::default(),
        };
        let value = serde_json::to_value(&file).unwrap();
        let keys: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "version",
                "session_id",
                "project_id",
                "created_at",
                "last_modified",
                "working_directory",
                "current_model",
                "total_tokens",
                "session_total_usage",
                "thoughts",
                "messages"
            ]
        );
        let back: SessionFile = serde_json::from_value(value).unwrap();
        assert_eq!(back, file);
    }
}
