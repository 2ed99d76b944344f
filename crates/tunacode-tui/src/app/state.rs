//! The UI's state: only what it renders, plus the handle it submits operations through, in parts by
//! what each decides (see [`App`]). The engine's state lives in the core's runtime.

use std::path::PathBuf;

use tokio::sync::mpsc;
use tunacode_core::{Op, RuntimeEvent};

use crate::app::input_state::InputState;
use crate::app::overlays::Overlays;
use crate::app::runtime_mirror::RuntimeMirror;
use crate::app::view_state::ViewState;
use crate::setup::SetupScreen;

/// What reaches the UI loop besides terminal input.
#[derive(Debug)]
pub enum AppMsg {
    /// An event from the runtime.
    Runtime(Box<RuntimeEvent>),
    /// An image read from the clipboard (Ctrl+V), kept in a file, or why there is none.
    ClipboardImage(Result<PathBuf, String>),
    /// The highlighter finished a code block the transcript shows.
    CodeHighlighted,
}

/// What the screen shows.
#[derive(Debug)]
pub enum Screen {
    /// First-run setup.
    Setup(Box<SetupScreen>),
    /// The conversation.
    Chat,
}

/// The whole UI state: the owner that routes terminal input and runtime events between its parts,
/// each of which decides one thing.
pub struct App {
    /// What is on screen.
    pub screen: Screen,
    /// What the chat shows, and how.
    pub view: ViewState,
    /// The input box and what helps typing.
    pub input: InputState,
    /// What is open over the chat.
    pub overlays: Overlays,
    /// What the UI knows of the runtime.
    pub mirror: RuntimeMirror,
    /// Set to leave the loop.
    pub should_quit: bool,
    /// Where background work and runtime events report.
    pub msgs: mpsc::UnboundedSender<AppMsg>,
    /// The working directory.
    pub cwd: PathBuf,
    /// Where images pasted from the clipboard are kept.
    pub pastes_dir: PathBuf,
}

impl App {
    /// Whether a request is in flight.
    pub fn busy(&self) -> bool {
        self.mirror.busy
    }

    /// Submits an operation to the runtime.
    pub fn submit_op(&self, op: Op) {
        self.mirror.submit(op);
    }
}
