//! Canonical data shapes of TunaCode, shared by every other crate: conversation messages and their parts
//! (seed 001's persistence wire format), token usage, and the [`AgentEvent`] stream that replaces the
//! original's callbacks. This crate performs no I/O.

mod commands;
mod content;
mod diff_hunks;
mod event;
mod extra;
mod extra_value;
mod field_name;
mod mcp;
mod media;
mod message;
mod part;
mod part_read;
pub mod runtime;
pub mod stream;
mod tail;
mod tool_args;
mod tool_args_text;
mod tool_kind;
mod usage;
mod verification;

pub use commands::{BudgetChange, SlashCommand, export_format_of, parse_slash};
pub use content::Content;
pub use diff_hunks::{
    DiffHunk, EditedHunk, HunkSelection, HunkVerdict, diff_hunks, edited_hunk_text,
};
pub use event::{
    AgentEvent, FinishReason, NoticeLevel, OutputStream, TodoItem, TodoStatus, ToolStatus, ToolUse,
};
pub use extra::Extra;
pub use extra_value::ExtraValue;
pub use field_name::{FieldName, field_name, owned_field_name};
pub use mcp::{
    ConfigSource, MCP_TOOL_PREFIX, McpServerSpec, McpTransport, ServerState, ServerStatus,
    pending_mcp_notice,
};
pub use media::{AsContent, Image, as_image, image_item, images_in, text_without_images};
pub use message::{COMPACTED_KEY, Message, MessageBody, MessageKind};
pub use part::{
    Part, RetryPromptPart, SystemPromptPart, TextPart, ThinkingPart, ToolCallPart, ToolReturnPart,
    UserPromptPart, content_text, content_to_text,
};
pub use tail::keep_tail;
pub use tool_args::ToolArgs;
pub use tool_kind::ToolKind;
pub use usage::Usage;
pub use verification::{CheckPhase, CheckReport, CheckStatus, Verification, VerificationStatus};

/// The text a response carries when the user interrupted it while it streamed.
pub const INTERRUPTED_MARKER: &str = "[INTERRUPTED]";

/// What a retry notice says before its wait (`rate limited: …; retrying in 4.0s (retry 2 of 4)`), so a
/// front end can show one retry line that updates in place.
pub const RETRY_NOTICE_MARK: &str = "; retrying in ";

/// A tool as offered to the model: its name, what it does, and the JSON schema of its arguments.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ToolSpec {
    /// The name the model calls it by.
    pub name: String,
    /// What it does and when to use it.
    pub description: String,
    /// JSON schema (an object schema) of its arguments.
    pub parameters: serde_json::Value,
}
