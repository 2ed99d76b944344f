//! Sessions as front ends show them: the current one, saved ones in a listing, and what an undo did.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::event::{NoticeLevel, TodoItem};
use crate::message::Message;
use crate::usage::Usage;

/// A saved session in a store's listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionSummary {
    /// The id.
    pub session_id: String,
    /// When it was last saved.
    pub last_modified: String,
    /// The model last used.
    pub current_model: String,
    /// How many messages it has.
    pub message_count: usize,
    /// The first user prompt, shortened.
    pub title: String,
    /// The first lines of the conversation, for a picker's preview.
    #[serde(default)]
    pub preview: String,
    /// The session and prompt it was forked from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<ForkOrigin>,
    /// The file.
    pub path: PathBuf,
}

/// Where a forked session came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForkOrigin {
    /// The original session.
    pub session_id: String,
    /// Its prompt (1-based) the fork's history ends after (for a sub-agent's session: the prompt
    /// whose request started it).
    pub prompt: usize,
    /// The agent type, when this session is a sub-agent's (started by the parent's `task` call)
    /// rather than a fork.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent: Option<String>,
}

impl ForkOrigin {
    /// How a listing names the link: `fork of 1a2b3c4d at prompt 2`, or `sub-agent explore of
    /// 1a2b3c4d (prompt 2)`.
    pub fn relation(&self) -> String {
        let parent = &self.session_id[..self.session_id.len().min(8)];
        match &self.subagent {
            Some(kind) => format!("sub-agent {kind} of {parent} (prompt {})", self.prompt),
            None => format!("fork of {parent} at prompt {}", self.prompt),
        }
    }
}

/// A saved session in a listing, with a short preview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListedSession {
    /// The summary from the store.
    pub summary: SessionSummary,
    /// The first lines of its conversation.
    pub preview: String,
}

/// The current session, as a front end shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionView {
    /// Its id.
    pub session_id: String,
    /// The workspace it works in (the resolved working directory).
    pub workspace: PathBuf,
    /// Its history (to replay on screen), shared with the session: opening one never copies it.
    pub messages: std::sync::Arc<Vec<Message>>,
    /// The model in use.
    pub model: ModelView,
    /// Whether plan mode is on.
    pub plan_mode: bool,
    /// Usage so far.
    pub usage: Usage,
    /// The todo list.
    pub todos: Vec<TodoItem>,
    /// Whether it was loaded from disk (resumed) rather than new.
    pub resumed: bool,
    /// Something the user should know about how it was opened (e.g. nothing to continue, messages
    /// recovered from its journal, lines of it kept aside).
    pub notice: Option<SessionNotice>,
}

/// Something the user should know about how a session was opened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionNotice {
    /// How loud.
    pub level: NoticeLevel,
    /// The text.
    pub message: String,
    /// The figures behind it when the session's journal was replayed.
    pub recovery: Option<JournalRecovery>,
}

impl SessionNotice {
    /// A notice for information only.
    pub fn info(message: impl Into<String>) -> Self {
        SessionNotice {
            level: NoticeLevel::Info,
            message: message.into(),
            recovery: None,
        }
    }
}

/// What replaying a session's journal found (the last run stopped before it saved).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalRecovery {
    /// Journal lines replayed: messages and tool results the last run wrote before it stopped.
    pub recovered: usize,
    /// Journal lines that could not be replayed (unreadable, or needing one that was).
    pub kept_aside: usize,
    /// The file those lines were kept in, beside the session (never removed by TunaCode).
    pub kept_file: Option<PathBuf>,
}

/// The model in use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelView {
    /// `provider:model`.
    pub model: String,
    /// Its context window in tokens, when known.
    pub context_window: Option<u64>,
}

/// One file a rewind put back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndoneFile {
    /// The file, relative to the workspace.
    pub path: String,
    /// What was done to it: `restored`, `recreated` or `removed`.
    pub action: String,
}

/// A custom slash command, as front ends list it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandView {
    /// Its name (`/name`).
    pub name: String,
    /// What it does.
    pub description: String,
}
