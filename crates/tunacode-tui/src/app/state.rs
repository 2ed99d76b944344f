//! The UI's state: only what it renders, plus the handle it submits operations through. The engine's
//! state lives in the core's runtime.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;
use tunacode_protocol::ServerStatus;

use ratatui_textarea::TextArea;
use tokio::sync::mpsc;
use tunacode_core::{Op, RuntimeEvent, RuntimeHandle};
use tunacode_protocol::runtime::ModelCatalogue;
use tunacode_protocol::{TodoItem, Usage};

use crate::app::dialogs::QuestionDialog;
use crate::app::picker::Picker;
use crate::app::status::StatusState;
use crate::app::transcript::Transcript;
use crate::complete::{CompletionContext, CompletionPopup, InputHistory, SharedFileIndex};
use crate::setup::{KeyPrompt, SetupScreen};
use crate::theme::Theme;

/// What reaches the UI loop besides terminal input.
#[derive(Debug)]
pub enum AppMsg {
    /// An event from the runtime.
    Runtime(Box<RuntimeEvent>),
}

/// What the screen shows.
#[derive(Debug)]
pub enum Screen {
    /// First-run setup.
    Setup(Box<SetupScreen>),
    /// The conversation.
    Chat,
}

/// The whole UI state.
pub struct App {
    /// Colors.
    pub theme: Theme,
    /// What is on screen.
    pub screen: Screen,
    /// The conversation so far.
    pub transcript: Transcript,
    /// The message editor.
    pub input: TextArea<'static>,
    /// The status line.
    pub status: StatusState,
    /// A question from the runtime.
    pub dialog: Option<Box<dyn QuestionDialog>>,
    /// The dialog opened since the last frame: keys typed before it is drawn do not answer it.
    pub dialog_undrawn: bool,
    /// An open picker.
    pub picker: Option<Picker>,
    /// Asking for a key before switching models: the prompt and the model id.
    pub key_prompt: Option<(KeyPrompt, String)>,
    /// Completion popup and where it applies.
    pub popup: Option<(CompletionPopup, CompletionContext)>,
    /// Input history of this project.
    pub history: InputHistory,
    /// Files for `@` completion.
    pub files: SharedFileIndex,
    /// Messages waiting behind the running request (as the runtime reports).
    pub queued: usize,
    /// Show reasoning.
    pub show_thoughts: bool,
    /// Show tool output whole.
    pub expand_tools: bool,
    /// When Ctrl+C was pressed on an empty input (a second press quits).
    pub quit_armed: Option<Instant>,
    /// Set to leave the loop.
    pub should_quit: bool,
    /// The agent's todo list.
    pub todos: Vec<TodoItem>,
    /// Usage per model, for `/cost`.
    pub usage_by_model: BTreeMap<String, Usage>,
    /// A short hint shown in the input's title.
    pub hint: Option<String>,
    /// Where operations go (absent only in tests that draw without a runtime).
    pub runtime: Option<RuntimeHandle>,
    /// Whether a request is in flight (from the runtime's events).
    pub busy: bool,
    /// A model asked for with `/model`, kept to retry after its key was entered.
    pub pending_model: Option<String>,
    /// Whether a session was shown yet (the first is not announced).
    pub session_shown: bool,
    /// Known models.
    pub catalogue: ModelCatalogue,
    /// Where background work and runtime events report.
    pub msgs: mpsc::UnboundedSender<AppMsg>,
    /// The working directory.
    pub cwd: PathBuf,
    /// Escape sequences to write to the terminal after the next frame (OSC 52 copy).
    pub pending_output: Vec<String>,
    /// The MCP servers' last reported statuses, by name.
    pub mcp_servers: BTreeMap<String, ServerStatus>,
    /// The custom slash commands the runtime found.
    pub custom_commands: Vec<tunacode_core::runtime::CommandView>,
}

impl App {
    /// Whether a request is in flight.
    pub fn busy(&self) -> bool {
        self.busy
    }

    /// Submits an operation to the runtime.
    pub fn submit_op(&self, op: Op) {
        if let Some(runtime) = &self.runtime {
            runtime.submit(op);
        }
    }
}
