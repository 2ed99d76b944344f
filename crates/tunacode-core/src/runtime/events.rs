//! What the runtime tells its front ends: the engine's events, questions for the user, and the results
//! of operations. Front ends render these; they never reach into the engine.

use std::path::PathBuf;

use crate::mcp::ServerStatus;
use serde_json::Value;
use tunacode_protocol::{AgentEvent, Message, TodoItem, Usage};
use tunacode_store::{SessionSummary, StoreError};

use crate::agent::RunOutcome;
use crate::approval::ProgressReport;
use crate::error::RequestError;
use crate::runtime::scope::SessionScope;
use crate::settings::SettingsError;
use tunacode_tools::ToolKind;

/// One thing that happened.
#[derive(Debug)]
pub enum RuntimeEvent {
    /// The engine reported progress.
    Agent(AgentEvent),
    /// The user is asked something; answer with [`crate::Op::Answer`] and this question's id.
    Question(Question),
    /// A question was closed without an answer from the user (its request was interrupted, or nobody
    /// can answer any more); front ends close what they show for it.
    QuestionClosed {
        /// The question's id.
        id: String,
    },
    /// A user message starts being processed (messages sent while a request runs wait in order).
    UserMessage {
        /// What the user typed.
        text: String,
        /// Files attached through `@path` mentions.
        attached: Vec<String>,
    },
    /// Messages waiting for the running request to end.
    Queued {
        /// How many wait.
        pending: usize,
    },
    /// A request ended (after the engine's last event for it).
    RequestEnded(Box<RequestEnd>),
    /// A session is now the current one (at start, after `NewSession` or `ResumeSession`).
    SessionOpened(Box<SessionView>),
    /// The model changed.
    ModelChanged(ModelView),
    /// Yolo (approve every call) was switched.
    YoloChanged {
        /// Whether it is on.
        on: bool,
    },
    /// A running `!` shell command printed `text` (in arrival order, bounded like a tool's).
    ShellOutput {
        /// The command.
        command: String,
        /// The new text.
        text: String,
    },
    /// A `!` shell command ended.
    ShellFinished {
        /// The command.
        command: String,
        /// What it printed (or the error).
        output: String,
    },
    /// This project's saved sessions, newest first.
    SessionList {
        /// The sessions with a short preview each.
        sessions: Vec<ListedSession>,
        /// Files that could not be read, with why.
        unreadable: Vec<String>,
    },
    /// An MCP server's state or tools changed (starting, ready, failed, stopped).
    McpServer(ServerStatus),
    /// Every MCP server's status (the answer to `ListMcp`).
    McpServers(Vec<ServerStatus>),
    /// The project's `.mcp.json` names servers the user has not approved; they are not started until
    /// `ApproveProjectMcp`.
    McpProjectPending {
        /// The file.
        file: PathBuf,
        /// The servers it names.
        servers: Vec<String>,
    },
    /// The custom slash commands of this project and user (sent when the runtime opens).
    CustomCommands(Vec<CommandView>),
    /// What reaches the model besides the conversation: instruction files and skills, with their
    /// cost (the answer to `DescribeContext`).
    Context(String),
    /// The workspace was put back as it was before a request (`Op::Undo`).
    Undone(Undone),
    /// What the agent may do: the sandbox, the environment filter and the permission rules, as text.
    Permissions(String),
    /// An operation could not be carried out; nothing changed.
    OpFailed(OpFailure),
    /// The runtime stopped (after `Finish` or `Shutdown`); no event follows.
    Stopped,
}

/// A custom slash command, as front ends list it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandView {
    /// Its name (`/name`).
    pub name: String,
    /// What it does.
    pub description: String,
}

/// What an undo restored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undone {
    /// The request whose changes (and everything after) were undone.
    pub request_id: String,
    /// Each file and what was done to it (`restored`, `recreated`, `removed`).
    pub files: Vec<(String, &'static str)>,
}

/// A question for the user.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// Its id (what the answer names).
    pub id: String,
    /// What is asked.
    pub kind: QuestionKind,
}

/// What a question asks.
#[derive(Debug, Clone, PartialEq)]
pub enum QuestionKind {
    /// May this tool call run?
    Approval(ApprovalQuestion),
    /// The iteration limit was reached: continue, summarize, try another approach, or stop?
    IterationLimit(ProgressReport),
    /// The model presented a plan: approve or reject it?
    PlanReview {
        /// The plan, in markdown.
        plan: String,
    },
}

/// An approval to give or refuse.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalQuestion {
    /// The tool call.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// Its arguments.
    pub args: Value,
    /// What this call may do.
    pub kind: ToolKind,
    /// The diff of an edit or the command line, when there is one.
    pub preview: Option<String>,
    /// Why it asks.
    pub reason: String,
    /// What "allow for this session" would cover.
    pub scope: SessionScope,
    /// Only this one call can be allowed (running outside the sandbox, a dangerous command): an
    /// "allow for the session" answer counts as allow once.
    pub once_only: bool,
}

/// How a request ended.
#[derive(Debug)]
pub struct RequestEnd {
    /// The request's id (empty when it failed before starting).
    pub request_id: String,
    /// The session it ran in.
    pub session_id: String,
    /// The model it used.
    pub model: String,
    /// The outcome.
    pub outcome: Result<RunOutcome, RequestError>,
    /// The session's usage after it.
    pub usage: Usage,
}

/// The current session, as a front end shows it.
#[derive(Debug, Clone)]
pub struct SessionView {
    /// Its id.
    pub session_id: String,
    /// Its history (to replay on screen).
    pub messages: Vec<Message>,
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
#[derive(Debug, Clone, PartialEq)]
pub struct SessionNotice {
    /// How loud.
    pub level: tunacode_protocol::NoticeLevel,
    /// The text.
    pub message: String,
    /// The figures behind it when the session's journal was replayed.
    pub recovery: Option<JournalRecovery>,
}

impl SessionNotice {
    /// A notice for information only.
    pub fn info(message: impl Into<String>) -> Self {
        SessionNotice {
            level: tunacode_protocol::NoticeLevel::Info,
            message: message.into(),
            recovery: None,
        }
    }
}

/// What replaying a session's journal found (the last run stopped before it saved).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalRecovery {
    /// Journal lines replayed: messages and tool results the last run wrote before it stopped.
    pub recovered: usize,
    /// Journal lines that could not be replayed (unreadable, or needing one that was).
    pub kept_aside: usize,
    /// The file those lines were kept in, beside the session (never removed by TunaCode).
    pub kept_file: Option<PathBuf>,
}

/// The model in use.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelView {
    /// `provider:model`.
    pub model: String,
    /// Its context window in tokens, when known.
    pub context_window: Option<u64>,
}

/// A saved session in a listing.
#[derive(Debug, Clone)]
pub struct ListedSession {
    /// The summary from the store.
    pub summary: SessionSummary,
    /// The first lines of its conversation.
    pub preview: String,
}

/// Why an operation failed.
#[derive(Debug, thiserror::Error)]
pub enum OpFailure {
    /// The model's settings could not be resolved (e.g. a missing key, which names its variable).
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// A session could not be read or listed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// It cannot be done while a request runs.
    #[error("wait for the agent to finish (or interrupt it) before you {0}")]
    Busy(&'static str),
    /// No open question has this id.
    #[error("no open question has the id `{0}`")]
    UnknownQuestion(String),
    /// The answer does not fit the question.
    #[error("the answer does not fit question `{0}`")]
    WrongAnswer(String),
    /// The operation does not apply now (the reason says why).
    #[error("{0}")]
    Invalid(String),
}
