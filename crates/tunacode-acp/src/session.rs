//! One ACP session: its runtime, and a task that turns the editor's requests into operations and the
//! runtime's events into `session/update`s. The task has one thing in flight with the runtime at a
//! time (a prompt's request, a built-in command, a model switch: `turns.rs`), so every answer the
//! runtime gives is matched to the request that asked for it.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, Notice, NoticeSeverity, SessionNotification, SessionUpdate,
    SetSessionModeResponse, TextContent,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error};
use tokio::sync::mpsc;
use tunacode_core::EditorFiles;
use tunacode_core::{Op, RuntimeEvent, RuntimeHandle, SessionView};

use crate::command::{Command, session_not_found};
use crate::in_flight::{Current, Waiting};
use crate::modes::{ASK_MODE, PLAN_MODE, YOLO_MODE, mode_ops};
use crate::open_sessions::Registered;

/// A session's state, owned by its task.
pub(crate) struct Session {
    pub(crate) cx: ConnectionTo<Client>,
    pub(crate) id: String,
    runtime: RuntimeHandle,
    events: mpsc::UnboundedReceiver<RuntimeEvent>,
    /// The session as it opened (its history is replayed on `session/load`).
    pub(crate) view: SessionView,
    /// The working directory.
    pub(crate) root: PathBuf,
    /// The editor's files, when it offers them.
    pub(crate) files: Option<Arc<dyn EditorFiles>>,
    /// The models offered.
    pub(crate) models: Vec<String>,
    /// The current mode.
    pub(crate) mode: &'static str,
    /// The mode plan mode returns to.
    pub(crate) mode_before_plan: &'static str,
    /// What the runtime is doing for the editor now.
    pub(crate) current: Option<Current>,
    /// What waits for it, in order.
    pub(crate) waiting: VecDeque<Waiting>,
    /// Questions asked and not yet answered or closed, with the tool call each is about.
    pub(crate) open_questions: HashMap<String, String>,
    /// Tool calls announced to the editor and not finished.
    pub(crate) announced: HashSet<String>,
    /// What each running command has printed so far (sent whole as its content while it runs).
    pub(crate) live_output: std::collections::HashMap<String, String>,
    /// Where answers come back (the session's own queue; weak, so the queue closes when the
    /// connection drops the session).
    pub(crate) answers: Option<mpsc::WeakUnboundedSender<Command>>,
    /// Set when the connection closes the session: prompts still queued end without running.
    pub(crate) closing: Arc<AtomicBool>,
    /// The session's cost so far (sent with usage updates).
    pub(crate) cost: f64,
    /// The session's spend cap in USD, as the runtime last said.
    pub(crate) budget: Option<f64>,
    /// Whether the editor shows notices (else they are logged).
    pub(crate) notices: bool,
    /// Whether the editor reviews edits hunk by hunk.
    pub(crate) hunk_review: bool,
    /// Whether the running compaction said what it did (else its outcome's text is said).
    pub(crate) compaction_said: bool,
    /// Whether the session has a title (its first prompt), told to the editor.
    pub(crate) titled: bool,
}

impl Session {
    /// A session over a started runtime.
    pub(crate) fn new(
        cx: ConnectionTo<Client>,
        runtime: RuntimeHandle,
        events: mpsc::UnboundedReceiver<RuntimeEvent>,
        view: SessionView,
        root: PathBuf,
        files: Option<Arc<dyn EditorFiles>>,
        models: Vec<String>,
    ) -> Self {
        let mode = if view.plan_mode { PLAN_MODE } else { ASK_MODE };
        let titled = !view.messages.is_empty();
        Session {
            cx,
            id: view.session_id.clone(),
            runtime,
            events,
            view,
            root,
            files,
            models,
            mode,
            mode_before_plan: ASK_MODE,
            current: None,
            waiting: VecDeque::new(),
            open_questions: HashMap::new(),
            announced: HashSet::new(),
            live_output: std::collections::HashMap::new(),
            answers: None,
            closing: Arc::new(AtomicBool::new(false)),
            cost: 0.0,
            budget: None,
            notices: false,
            hunk_review: false,
            compaction_said: false,
            titled,
        }
    }

    /// The session id.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// The current mode.
    pub(crate) fn mode(&self) -> &'static str {
        self.mode
    }

    /// The model in use.
    pub(crate) fn model(&self) -> &str {
        &self.view.model.model
    }

    /// Submits an operation to the runtime.
    pub(crate) fn submit(&self, op: Op) {
        self.runtime.submit(op);
    }

    /// Sends an update for this session.
    pub(crate) fn send(&self, update: SessionUpdate) -> Result<(), Error> {
        self.cx
            .send_notification(SessionNotification::new(self.id.clone(), update))
    }

    /// Sends `text` as the agent's message.
    pub(crate) fn say(&self, text: impl Into<String>) -> Result<(), Error> {
        self.send(SessionUpdate::AgentMessageChunk(ContentChunk::new(
            ContentBlock::Text(TextContent::new(text.into())),
        )))
    }

    /// Tells the user something outside the conversation: a notice when the editor shows them, else
    /// the log.
    pub(crate) fn notice(&self, severity: NoticeSeverity, text: String) -> Result<(), Error> {
        if self.notices {
            return self.send(SessionUpdate::Notice(Notice::new(severity, text)));
        }
        tracing::warn!(session = %self.id, "{text}");
        Ok(())
    }

    /// Runs until the connection closes the session or the runtime stops; then stops the runtime,
    /// which interrupts and saves a running request first.
    pub(crate) async fn run(mut self, registered: Registered) {
        let Registered {
            mut commands,
            answers,
            closing,
        } = registered;
        self.answers = Some(answers);
        self.closing = closing;
        self.view.messages = Default::default();
        let mut stopped = false;
        while !self.closing.load(Ordering::SeqCst) {
            let step = tokio::select! {
                command = commands.recv() => match command {
                    Some(command) => self.on_command(command).await,
                    None => break,
                },
                event = self.events.recv() => match event {
                    None | Some(RuntimeEvent::Stopped) => {
                        stopped = true;
                        break;
                    }
                    Some(event) => self.on_event(event).await,
                },
            };
            if let Err(e) = step {
                tracing::warn!(session = %self.id, "the editor connection failed: {e:?}");
                break;
            }
        }
        self.end_all();
        commands.close();
        while let Ok(command) = commands.try_recv() {
            let _ = command.refuse(session_not_found(&self.id));
        }
        self.runtime.submit(Op::Shutdown);
        while !stopped {
            stopped = matches!(self.events.recv().await, None | Some(RuntimeEvent::Stopped));
        }
    }

    async fn on_command(&mut self, command: Command) -> Result<(), Error> {
        match command {
            Command::Prompt(blocks, responder) => self.on_prompt(&blocks, responder).await,
            Command::Cancel | Command::Close => self.on_cancel(),
            Command::SetMode(mode, responder) => self.on_set_mode(&mode, responder),
            Command::SetConfig(request, responder) => self.on_set_config(request, responder),
            Command::Answered { id, answer } => self.on_answered(id, answer),
        }
    }

    /// `session/set_mode`: yolo and plan mode switched in the runtime.
    fn on_set_mode(
        &mut self,
        mode: &str,
        responder: Responder<SetSessionModeResponse>,
    ) -> Result<(), Error> {
        let Some((mode, ops)) = mode_ops(mode) else {
            return responder.respond_with_error(
                Error::invalid_params().data(serde_json::json!(format!("no mode `{mode}`"))),
            );
        };
        for op in ops {
            self.submit(op);
        }
        if mode != PLAN_MODE {
            self.mode_before_plan = mode;
        }
        self.mode = mode;
        responder.respond(SetSessionModeResponse::new())
    }

    /// Plan mode ended in the runtime (an approved plan): back to the mode before it, yolo included.
    pub(crate) fn leave_plan_mode(&mut self) {
        self.mode = self.mode_before_plan;
        if self.mode == YOLO_MODE {
            self.submit(Op::SetYolo { on: true });
        }
    }
}
