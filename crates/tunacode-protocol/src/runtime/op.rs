//! What front ends ask the runtime to do. Every front end (the TUI, `tunacode run`, the editor
//! protocol) speaks only these.

use serde::{Deserialize, Serialize};

use crate::mcp::McpServerSpec;
use crate::runtime::question::Answer;
use crate::runtime::setup::SetupChoice;

/// A file attached to a user message (an editor hands its text over, unsaved changes included).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachment {
    /// How the file is named to the model (workspace-relative when inside it).
    pub path: String,
    /// Its text (an editor's unsaved text included).
    pub text: String,
}

/// An operation submitted to the runtime.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// A message from the user: starts a request, or waits for the running one to end. `@path`
    /// mentions attach files, and so do `attachments` (files an editor hands over with the message).
    UserMessage {
        /// What the user typed.
        text: String,
        /// Files attached to the message, after the mentioned ones.
        attachments: Vec<Attachment>,
        /// Images given with the message (besides `@image.png` mentions).
        #[serde(default)]
        images: Vec<ImageInput>,
    },
    /// Compacts the history (queued behind a running request): the model summarizes the older
    /// turns, which the summary replaces in the conversation; `focus` says what it should keep.
    Compact {
        /// What the summary should keep in particular.
        focus: Option<String>,
    },
    /// Stops the running request (the partial answer is kept as `[INTERRUPTED]`, tools are cancelled),
    /// drops the messages waiting behind it, and stops a running `!` command.
    Interrupt,
    /// Answers a question.
    Answer {
        /// The question's id.
        id: String,
        /// The answer.
        answer: Answer,
    },
    /// Switches the model (between requests), keeping the history.
    SetModel {
        /// `provider:model`.
        model: String,
    },
    /// Starts a new, empty session (between requests).
    NewSession,
    /// Continues a saved session of this project (between requests).
    ResumeSession {
        /// Its id.
        id: String,
    },
    /// Lists this project's saved sessions (answered with a `SessionList` event).
    ListSessions,
    /// Describes what reaches the model besides the conversation (answered with a `Context` event).
    DescribeContext,
    /// Reports every MCP server's status (answered with an `McpServers` event).
    ListMcp,
    /// Puts the files back as they were before the last prompt of this session that changed them
    /// (`to`: the `to`-th last, counted from where an earlier undo or rewind left them), files
    /// changed by tools and by commands alike (between requests). Answered with `Rewound`.
    Undo {
        /// How many prompts back (default 1).
        to: Option<usize>,
    },
    /// Goes back to just before prompt `to` (1-based) of this session: the conversation, the
    /// files, or both. A file the user changed since the agent left it is kept and named. Answered
    /// with `Rewound` (its `text` is the prompt, to edit and send again).
    Rewind {
        /// The prompt's number.
        to: usize,
        /// What goes back.
        mode: super::rewind::RewindMode,
    },
    /// Returns to where the user was before the rewinds since the last prompt. Answered with
    /// `Rewound`.
    Redo,
    /// Lists this session's prompts (answered with `Turns`).
    ListTurns,
    /// Forks this session into a new one whose history ends after prompt `at` (default: the
    /// last), and switches to it; the original is left as it is. Answered with `Forked`.
    Fork {
        /// The prompt's number.
        at: Option<usize>,
    },
    /// Writes this session to a file (secrets redacted): `path`, or `<session>.<format>` in the
    /// working directory. Answered with `Exported`.
    Export {
        /// The format.
        format: super::rewind::ExportFormat,
        /// Where.
        path: Option<String>,
    },
    /// Describes what the agent may do: the sandbox and the permission rules (answered with a
    /// `Permissions` event).
    DescribePermissions,
    /// Says the spend caps and what was spent against them (answered with a `Budget` event).
    DescribeBudget,
    /// Sets (or, with neither amount, removes) the cap of `scope` for the rest of this run
    /// (answered with a `Budget` event).
    SetBudget {
        /// What the cap covers.
        scope: super::budget::BudgetScope,
        /// The most USD.
        usd: Option<f64>,
        /// The most tokens.
        tokens: Option<u64>,
    },
    /// Changes where commands run for the rest of the session (between requests): `workspace-write`,
    /// `read-only` or `off`. Answered with a `Permissions` event.
    SetSandbox {
        /// The mode's name.
        mode: String,
    },
    /// Approves the project's `.mcp.json` as it is now (remembered in the data dir) and starts its
    /// servers.
    ApproveProjectMcp,
    /// Describes the checks or hooks in force and the project's file (answered with a
    /// `ProjectFiles` event).
    DescribeProjectFile {
        /// Which.
        kind: super::project_file::ProjectFileKind,
    },
    /// Approves the project's checks or hooks file as it is now (remembered in the data dir, used
    /// from the next request on); answered with a `ProjectFiles` event.
    ApproveProjectFile {
        /// Which.
        kind: super::project_file::ProjectFileKind,
    },
    /// Starts more MCP servers (an editor hands them over with its session), like configured ones.
    AddMcpServers {
        /// The servers.
        servers: Vec<McpServerSpec>,
    },
    /// Switches plan mode (read-only until a plan is approved).
    SetPlanMode {
        /// On or off.
        active: bool,
    },
    /// Switches yolo: every write and command runs without asking.
    SetYolo {
        /// On or off.
        on: bool,
    },
    /// Runs a shell command for the user; its output is shown, not sent to the model.
    Shell {
        /// The command line.
        command: String,
    },
    /// Whether someone can answer questions from now on. When not (e.g. the script driving a
    /// headless run closed its input), open questions close and later ones get the answer a
    /// headless run gives: refuse writes and commands, stop at the iteration limit and on plans.
    SetInteractive {
        /// Whether questions can be answered.
        on: bool,
    },
    /// Checks a setup choice with one cheap real request, using the settings the run will use (the
    /// config as setup would save it; nothing is written). Answered with `SetupChecked`.
    CheckSetup(SetupChoice),
    /// Saves a setup choice to the user's config (mode 0600), then opens the session on it
    /// (`SessionOpened`; a failure is a `SetupChecked` error).
    SaveSetup(SetupChoice),
    /// Saves a provider's key to the user's config (`env.<var>`, mode 0600), then (when it was
    /// saved) switches to `model`, which reads it from there.
    SaveKey {
        /// The variable it is saved under.
        var: String,
        /// The key (never shown by `Debug`).
        key: Secret,
        /// The model to switch to once the key is saved.
        model: Option<String>,
    },
    /// Sets the current model's context window (saved as `models."<model>".context_window` in the
    /// user's config), then re-resolves the model (`ModelChanged` carries the window).
    SetContextWindow {
        /// The window in tokens.
        tokens: u64,
    },
    /// Lists the models the current provider's server serves (`GET /models` of an
    /// OpenAI-compatible server), answered with `ServerModels`.
    ListServerModels,
    /// Saves the interactive UI's theme to the user's config (`settings.theme`), for the next start.
    SaveTheme {
        /// The theme's name.
        name: String,
    },
    /// No more messages will come: waiting messages are processed, then the runtime stops.
    Finish,
    /// Stops now: the running request is interrupted and saved, then the runtime stops.
    Shutdown,
}

/// A secret (an API key): serialized as it is, never shown by `Debug`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret.
    pub fn new(secret: impl Into<String>) -> Self {
        Secret(secret.into())
    }

    /// The secret itself.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<{} chars>", self.0.chars().count())
    }
}

impl Op {
    /// A message from the user with no attachments besides its `@path` mentions.
    pub fn user_message(text: impl Into<String>) -> Op {
        Op::UserMessage {
            text: text.into(),
            attachments: Vec::new(),
            images: Vec::new(),
        }
    }

    /// A message from the user with images.
    pub fn user_message_with_images(text: impl Into<String>, images: Vec<ImageInput>) -> Op {
        Op::UserMessage {
            text: text.into(),
            attachments: Vec::new(),
            images,
        }
    }
}

/// An image given with a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", untagged)]
pub enum ImageInput {
    /// A file (the user gave it: it may lie outside the workspace, but never a secret).
    File {
        /// Its path.
        path: std::path::PathBuf,
    },
    /// The image itself.
    Inline {
        /// E.g. `image/png`.
        media_type: String,
        /// The bytes, base64.
        data: String,
    },
}
