//! The UI's state and how engine events and questions change it.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use ratatui_textarea::TextArea;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tunacode_core::{Agent, RequestError, RunOutcome};
use tunacode_llm::models::ModelRegistry;
use tunacode_protocol::{AgentEvent, NoticeLevel, TodoItem, ToolStatus, Usage};
use tunacode_store::Paths;

use crate::RunSettings;
use crate::app::bridge::{TuiApprover, UiRequest};
use crate::app::dialogs::Dialog;
use crate::app::picker::Picker;
use crate::app::status::{Activity, StatusState};
use crate::app::transcript::{CellKind, ToolCell, Transcript};
use crate::complete::{CompletionContext, CompletionPopup, InputHistory, SharedFileIndex};
use crate::render::StreamingMarkdown;
use crate::setup::{KeyPrompt, SetupScreen};
use crate::theme::Theme;

/// Results of work the UI started in the background.
#[derive(Debug)]
pub enum AppMsg {
    /// A request ended.
    RequestDone(Result<RunOutcome, RequestError>),
    /// A `!` command ended.
    ShellDone {
        /// The command.
        command: String,
        /// Its output.
        output: String,
    },
    /// The setup check ended.
    SetupChecked(Result<(), String>),
}

/// A request in flight.
#[derive(Debug)]
pub struct Running {
    /// Cancels it (Esc).
    pub cancel: CancellationToken,
    /// Its task.
    pub task: JoinHandle<()>,
}

/// Resolves run settings for a model (`None`: the configured default). Supplied by the binary.
pub type Resolver = Arc<dyn Fn(Option<&str>) -> Result<RunSettings, String> + Send + Sync>;

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
    /// A question from the engine.
    pub dialog: Option<Dialog>,
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
    /// Messages typed while the agent works, sent in order.
    pub queue: VecDeque<String>,
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
    /// The engine (absent until setup is done).
    pub agent: Option<Arc<Agent>>,
    /// The request in flight.
    pub running: Option<Running>,
    /// The approver given to the engine.
    pub approver: TuiApprover,
    /// Settings resolution.
    pub resolve: Resolver,
    /// Known models.
    pub registry: ModelRegistry,
    /// File locations.
    pub paths: Paths,
    /// Where background work reports.
    pub msgs: mpsc::UnboundedSender<AppMsg>,
    /// The engine's event sink (shared by every agent the UI builds).
    pub events: tunacode_core::EventSink,
    /// Questions from the engine.
    pub ui_requests: mpsc::UnboundedSender<UiRequest>,
    /// The working directory.
    pub cwd: std::path::PathBuf,
    /// Escape sequences to write to the terminal after the next frame (OSC 52 copy).
    pub pending_output: Vec<String>,
}

impl App {
    /// Whether a request is in flight.
    pub fn busy(&self) -> bool {
        self.running.is_some()
    }

    /// Applies one engine event.
    pub fn on_agent_event(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::RequestStarted { session_id, .. } => {
                self.status.session_id = session_id;
                self.status.set_activity(Activity::Thinking);
            }
            AgentEvent::IterationStarted { .. } => self.status.set_activity(Activity::Thinking),
            AgentEvent::TextDelta { text } => match self.transcript.open_answer() {
                Some(md) => md.push(&text),
                None => {
                    let mut md = StreamingMarkdown::new();
                    md.push(&text);
                    self.transcript.push(CellKind::Assistant(md));
                }
            },
            AgentEvent::ThinkingDelta { text } => match self.transcript.cells.last_mut() {
                Some(cell) if matches!(cell.kind, CellKind::Thinking(_)) => {
                    if let CellKind::Thinking(t) = &mut cell.kind {
                        t.push_str(&text);
                    }
                    cell.touch();
                }
                _ => self.transcript.push(CellKind::Thinking(text)),
            },
            AgentEvent::ToolBatchStarted { .. } => {}
            AgentEvent::ToolCallStarted {
                tool_call_id,
                tool_name,
                args,
            } => {
                self.status.set_activity(Activity::Tool(tool_name.clone()));
                self.transcript.push(CellKind::Tool(ToolCell {
                    id: tool_call_id,
                    name: tool_name,
                    args,
                    status: None,
                    started: Instant::now(),
                    duration_ms: None,
                    result: String::new(),
                    diff: None,
                }));
            }
            AgentEvent::ToolCallFinished {
                tool_call_id,
                result,
                duration_ms,
                status,
                diff,
                tool_name,
                args,
            } => {
                match self.transcript.tool_mut(&tool_call_id) {
                    Some(cell) => {
                        if let CellKind::Tool(t) = &mut cell.kind {
                            t.status = Some(status);
                            t.duration_ms = Some(duration_ms);
                            t.result = result;
                            t.diff = diff;
                        }
                        cell.touch();
                    }
                    None => self.transcript.push(CellKind::Tool(ToolCell {
                        id: tool_call_id,
                        name: tool_name,
                        args,
                        status: Some(status),
                        started: Instant::now(),
                        duration_ms: Some(duration_ms),
                        result,
                        diff,
                    })),
                }
                if status != ToolStatus::Cancelled {
                    self.status.set_activity(Activity::Thinking);
                }
            }
            AgentEvent::Notice { level, message } => {
                self.transcript.push(CellKind::Notice(level, message))
            }
            AgentEvent::UsageUpdated {
                last_call,
                session_total,
            } => {
                self.status.usage = session_total;
                self.status.context_used = last_call.request_tokens;
                self.usage_by_model
                    .entry(self.status.model.clone())
                    .or_default()
                    .add(&last_call);
            }
            AgentEvent::IterationLimitReached { .. } => {}
            AgentEvent::FallbackResponse { text } => {
                let mut md = StreamingMarkdown::new();
                md.push(&text);
                self.transcript.push(CellKind::Assistant(md));
            }
            AgentEvent::TodosUpdated { items } => self.todos = items,
            AgentEvent::PlanModeChanged { active } => {
                self.status.plan_mode = active;
                let text = if active {
                    "Plan mode on: read-only until a plan is approved."
                } else {
                    "Plan mode off: every tool is available."
                };
                self.transcript
                    .push(CellKind::Notice(NoticeLevel::Info, text.into()));
            }
            AgentEvent::PlanPresented { .. } => {}
            AgentEvent::RequestFinished { .. } => self.status.set_activity(Activity::Idle),
            AgentEvent::RequestAborted { .. } => {
                self.status.set_activity(Activity::Idle);
                self.transcript.push(CellKind::Notice(
                    NoticeLevel::Warning,
                    "Interrupted. The partial answer is kept.".into(),
                ));
            }
            AgentEvent::RequestTimedOut { timeout_secs } => {
                self.status.set_activity(Activity::Idle);
                self.transcript.push(CellKind::Error(format!(
                    "The request timed out after {timeout_secs}s."
                )));
            }
            AgentEvent::RequestFailed { message, .. } => {
                self.status.set_activity(Activity::Idle);
                self.transcript.push(CellKind::Error(message));
            }
        }
    }

    /// Shows a question from the engine.
    pub fn on_ui_request(&mut self, request: UiRequest) {
        if let Some(mut old) = self.dialog.take() {
            old.cancel();
        }
        self.status.set_activity(Activity::WaitingForUser);
        self.dialog = Some(match request {
            UiRequest::Approve { request, reply } => Dialog::Approval {
                request,
                reply: Some(reply),
                selected: 0,
                note: None,
                scroll: 0,
            },
            UiRequest::Limit { report, reply } => Dialog::Limit {
                report,
                reply: Some(reply),
                selected: 0,
            },
            UiRequest::Plan { plan, reply } => Dialog::Plan {
                plan,
                reply: Some(reply),
                selected: 0,
                feedback: None,
                scroll: 0,
            },
        });
    }

    /// Applies the result of background work.
    pub fn on_msg(&mut self, msg: AppMsg) {
        match msg {
            AppMsg::RequestDone(result) => {
                self.running = None;
                self.status.set_activity(Activity::Idle);
                if let Err(RequestError::Store(e)) = &result {
                    self.transcript.push(CellKind::Error(format!(
                        "The session could not be saved: {e}"
                    )));
                }
                if let Some(next) = self.queue.pop_front() {
                    self.start_request(next);
                }
            }
            AppMsg::ShellDone { command, output } => {
                self.transcript.push(CellKind::Shell { command, output })
            }
            AppMsg::SetupChecked(result) => {
                if let Screen::Setup(screen) = &mut self.screen {
                    screen.on_check_result(result);
                }
            }
        }
    }
}
