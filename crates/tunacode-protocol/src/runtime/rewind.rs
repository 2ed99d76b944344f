//! Rewind, redo and fork as front ends ask for and show them: what to go back to, the session's
//! prompts to pick from, and what a rewind did.

use serde::{Deserialize, Serialize};

use super::session::UndoneFile;

/// What a rewind puts back.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RewindMode {
    /// The conversation and the files.
    #[default]
    All,
    /// The conversation only.
    Conversation,
    /// The files only.
    Code,
}

impl RewindMode {
    /// Parses `all`, `conversation` or `code`.
    pub fn parse(text: &str) -> Option<RewindMode> {
        match text {
            "all" => Some(RewindMode::All),
            "conversation" => Some(RewindMode::Conversation),
            "code" => Some(RewindMode::Code),
            _ => None,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            RewindMode::All => "all",
            RewindMode::Conversation => "conversation",
            RewindMode::Code => "code",
        }
    }

    /// Whether it rewinds the conversation.
    pub fn conversation(self) -> bool {
        self != RewindMode::Code
    }

    /// Whether it rewinds the files.
    pub fn code(self) -> bool {
        self != RewindMode::Conversation
    }
}

/// One prompt of the session, as a rewind picker lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnView {
    /// Its 1-based number in the session.
    pub number: usize,
    /// What the user typed.
    pub text: String,
    /// When it was sent (RFC 3339).
    pub time: String,
    /// The files the turn changed, when known.
    pub files: Vec<String>,
    /// Whether its conversation point is still in the history (not compacted away).
    pub in_conversation: bool,
}

/// A file a rewind could not put back, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SkippedRestore {
    /// The file, relative to the workspace.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// What a rewind (or redo) did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rewound {
    /// `rewind`, `undo` or `redo`.
    pub kind: String,
    /// The prompt it went back to (the state just before it); for a redo, where the user was.
    pub prompt: usize,
    /// What was put back.
    pub mode: RewindMode,
    /// The rewound prompt's text, to edit and send again (empty for a redo or code only).
    pub text: String,
    /// Files put back as they were.
    pub files: Vec<UndoneFile>,
    /// Files the user changed since the agent left them: kept as they are.
    pub kept: Vec<String>,
    /// Files that could not be put back.
    pub skipped: Vec<SkippedRestore>,
    /// Messages dropped from the conversation.
    pub messages_dropped: usize,
    /// Anything else worth saying (a snapshot that finished late, excluded folders).
    pub notes: Vec<String>,
}

impl Rewound {
    /// What it did, in words, one file a line.
    pub fn describe(&self) -> String {
        let what = match (self.kind.as_str(), self.mode) {
            ("redo", _) => "Redo: back to where you were".to_string(),
            (kind, mode) => {
                let verb = if kind == "undo" { "Undo" } else { "Rewind" };
                let scope = match mode {
                    RewindMode::All => "conversation and files",
                    RewindMode::Conversation => "conversation",
                    RewindMode::Code => "files",
                };
                format!("{verb}: {scope} back to before prompt {}", self.prompt)
            }
        };
        let mut text = what;
        if self.mode.conversation() && self.kind != "redo" {
            text.push_str(&format!(" ({} messages set aside)", self.messages_dropped));
        }
        if self.mode.code() && self.files.is_empty() && self.kept.is_empty() {
            text.push_str("; no file needed changing");
        }
        text.push('.');
        for file in &self.files {
            text.push_str(&format!("\n  {} {}", file.action, file.path));
        }
        for path in &self.kept {
            text.push_str(&format!(
                "\n  kept {path} (you changed it since; not overwritten)"
            ));
        }
        for skip in &self.skipped {
            text.push_str(&format!("\n  not restored {}: {}", skip.path, skip.reason));
        }
        for note in &self.notes {
            text.push_str(&format!("\n  note: {note}"));
        }
        if self.kind != "redo" {
            text.push_str("\n/redo returns to where you were, until the next prompt.");
        }
        text
    }
}

/// A session forked from another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forked {
    /// The new session's id.
    pub session_id: String,
    /// The session it came from (left as it was).
    pub parent: String,
    /// The prompt its history ends after.
    pub prompt: usize,
}

/// The formats a session is exported in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// Markdown, for reading.
    #[default]
    Md,
    /// Versioned JSON that `tunacode import` restores.
    Json,
    /// A self-contained HTML page.
    Html,
}

impl ExportFormat {
    /// Parses `md`, `json` or `html`.
    pub fn parse(text: &str) -> Option<ExportFormat> {
        match text {
            "md" | "markdown" => Some(ExportFormat::Md),
            "json" => Some(ExportFormat::Json),
            "html" => Some(ExportFormat::Html),
            _ => None,
        }
    }

    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Md => "md",
            ExportFormat::Json => "json",
            ExportFormat::Html => "html",
        }
    }
}
