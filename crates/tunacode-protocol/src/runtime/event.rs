//! What the runtime tells its front ends: the engine's events, questions for the user, and the results
//! of operations. Front ends render these; they never reach into the engine.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::event::{AgentEvent, FinishReason};
use crate::mcp::ServerStatus;
use crate::runtime::failure::{OpFailure, RequestFailure};
use crate::runtime::question::Question;
use crate::runtime::rewind::{Forked, Rewound, TurnView};
use crate::runtime::session::{CommandView, ListedSession, ModelView, SessionView};
use crate::runtime::setup::SetupInfo;
use crate::usage::Usage;

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuntimeEvent {
    /// The engine reported progress.
    Agent(AgentEvent),
    /// The user is asked something; answer with `Op::Answer` and this question's id.
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
    /// A project's checks or hooks file waits for the user's approval, or cannot be used (sent when
    /// the runtime opens).
    ProjectFilePending(super::project_file::PendingProjectFile),
    /// The checks or hooks in force and the project's file, as text (the answer to
    /// `DescribeProjectFile` and `ApproveProjectFile`).
    ProjectFiles {
        /// Which.
        kind: super::project_file::ProjectFileKind,
        /// The description.
        text: String,
    },
    /// The custom slash commands of this project and user (sent when the runtime opens).
    CustomCommands(Vec<CommandView>),
    /// The models the current provider's server serves (empty when it lists none, or could not
    /// be asked).
    ServerModels {
        /// The provider, as model ids name it.
        provider: String,
        /// The models' ids at the server.
        models: Vec<String>,
    },
    /// The provider refused the model's key (HTTP 401/403) on the last request: a front end can
    /// ask for a new one (`SaveKey`). `from_env`: the key came from the environment, where a key
    /// saved to the config does not replace it.
    KeyRejected {
        /// The provider.
        provider: String,
        /// The variable the key is read from.
        var: String,
        /// Whether the rejected key is set in the environment.
        from_env: bool,
    },
    /// What the next request holds, part by part, against the window (the answer to
    /// `DescribeContext`).
    Context(Box<super::context::ContextBreakdown>),
    /// The conversation, the files or both went back to before a prompt, or forward again
    /// (`Op::Rewind`, `Op::Undo`, `Op::Redo`). A rewound conversation is sent again first as
    /// `SessionOpened`.
    Rewound(Rewound),
    /// This session's prompts, oldest first (the answer to `ListTurns`).
    Turns(Vec<TurnView>),
    /// A session was forked (`Op::Fork`); `SessionOpened` follows with the new session.
    Forked(Forked),
    /// The session was written to a file (`Op::Export`).
    Exported {
        /// The file.
        path: std::path::PathBuf,
    },
    /// What the agent may do: the sandbox, the environment filter and the permission rules, as text.
    Permissions(String),
    /// The spend caps and what was spent against them (when the runtime opens with caps, after
    /// each request, and when asked or changed).
    Budget(super::budget::BudgetView),
    /// A sub-agent (started by a `task` call of the running request) started, did something, or
    /// ended.
    Subagent(Box<super::subagent::SubagentUpdate>),
    /// An operation could not be carried out; nothing changed.
    OpFailed(OpFailure),
    /// No model or key is configured (or setup was asked for): no session is open until a
    /// `SaveSetup` succeeds. The first event of a runtime launched in setup mode.
    SetupNeeded(SetupInfo),
    /// The outcome of `CheckSetup` (or the failure of `SaveSetup`), in plain words.
    SetupChecked(Result<(), String>),
    /// The runtime stopped (after `Finish` or `Shutdown`); no event follows.
    Stopped,
}

/// How a request ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestEnd {
    /// The request's id (empty when it failed before starting).
    pub request_id: String,
    /// The session it ran in.
    pub session_id: String,
    /// The model it used.
    pub model: String,
    /// The outcome.
    pub outcome: Result<RunOutcome, RequestFailure>,
    /// The session's usage after it.
    pub usage: Usage,
}

/// How a request that did not fail ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOutcome {
    /// Why it stopped.
    pub reason: FinishReason,
    /// Iterations run.
    pub iterations: u32,
    /// The last text the model showed the user (marker stripped).
    pub response: String,
    /// The request's id.
    pub request_id: String,
    /// The provider's finish reason for the last model response (`stop`, `length`, `refusal`,
    /// `content_filter`, …), when it gave one.
    pub model_stop: Option<String>,
    /// How the request proved its changes (the project's checks).
    #[serde(default)]
    pub verification: crate::verification::Verification,
}

impl RunOutcome {
    /// Whether the model refused to answer (a safety or content filter stopped it).
    pub fn refused(&self) -> bool {
        matches!(
            self.model_stop.as_deref(),
            Some(
                "refusal"
                    | "content_filter"
                    | "safety"
                    | "prohibited_content"
                    | "blocklist"
                    | "spii"
            )
        )
    }
}
