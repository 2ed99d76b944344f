//! One ACP session: its runtime, and a task that turns the editor's requests into operations and the
//! runtime's events into `session/update`s. A prompt's response waits for its request to end; a
//! cancel interrupts the runtime (the partial answer is kept as `[INTERRUPTED]`, running tools are
//! cancelled) and the prompt ends with `cancelled`.

use std::collections::{HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, Notice, NoticeSeverity, PromptResponse, SessionConfigOptionValue,
    SessionNotification, SessionUpdate, SetSessionConfigOptionRequest,
    SetSessionConfigOptionResponse, SetSessionModeResponse, StopReason, TextContent,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error};
use tokio::sync::mpsc;
use tunacode_core::{Answer, Op, RuntimeEvent, RuntimeHandle, SessionView};
use tunacode_tools::EditorFiles;

use crate::modes::{ASK_MODE, MODEL_OPTION, mode_ops, model_options};
use crate::prompt::{ReplyKind, SlashCommand, message_text, parse_command};

/// What the connection hands a session.
pub(crate) enum Command {
    /// `session/prompt`.
    Prompt(Vec<ContentBlock>, Responder<PromptResponse>),
    /// `session/cancel`.
    Cancel,
    /// `session/set_mode`.
    SetMode(String, Responder<SetSessionModeResponse>),
    /// `session/set_config_option`.
    SetConfig(
        SetSessionConfigOptionRequest,
        Responder<SetSessionConfigOptionResponse>,
    ),
    /// The editor answered a question (from the task that asked it).
    Answered {
        /// The question's id.
        id: String,
        /// The answer.
        answer: Answer,
    },
}

impl Command {
    /// Answers the command's request with `error` (the session is not open).
    pub(crate) fn refuse(self, error: Error) -> Result<(), Error> {
        match self {
            Command::Prompt(_, r) => r.respond_with_error(error),
            Command::SetMode(_, r) => r.respond_with_error(error),
            Command::SetConfig(_, r) => r.respond_with_error(error),
            Command::Cancel | Command::Answered { .. } => Ok(()),
        }
    }
}

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
    /// Prompts that run as requests, in order; the first is running (or about to).
    pub(crate) requests: VecDeque<Responder<PromptResponse>>,
    /// Whether the first request has started.
    pub(crate) request_running: bool,
    /// Prompts answered by one event (built-in commands).
    replies: VecDeque<(ReplyKind, Responder<PromptResponse>)>,
    /// A model switch waiting for the runtime.
    pending_model: Option<Responder<SetSessionConfigOptionResponse>>,
    /// The editor cancelled the running prompt.
    pub(crate) cancelled: bool,
    /// Questions asked and not yet answered or closed.
    pub(crate) open_questions: HashSet<String>,
    /// Where answers come back (the session's own queue; weak, so the queue closes when the
    /// connection drops the session).
    pub(crate) answers: Option<mpsc::WeakUnboundedSender<Command>>,
    /// The session's cost so far (sent with usage updates).
    pub(crate) cost: f64,
    /// Whether the editor shows notices (else they are logged).
    pub(crate) notices: bool,
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
        let mode = if view.plan_mode {
            crate::modes::PLAN_MODE
        } else {
            ASK_MODE
        };
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
            requests: VecDeque::new(),
            request_running: false,
            replies: VecDeque::new(),
            pending_model: None,
            cancelled: false,
            open_questions: HashSet::new(),
            answers: None,
            cost: 0.0,
            notices: false,
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

    /// Runs until the connection drops the session (its queue closes) or the runtime stops; then stops
    /// the runtime, which interrupts and saves a running request first.
    pub(crate) async fn run(
        mut self,
        mut commands: mpsc::UnboundedReceiver<Command>,
        answers: mpsc::WeakUnboundedSender<Command>,
    ) {
        self.answers = Some(answers);
        self.view.messages = Vec::new();
        let mut stopped = false;
        loop {
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
        self.end_all(StopReason::Cancelled);
        self.runtime.submit(Op::Shutdown);
        while !stopped {
            stopped = matches!(self.events.recv().await, None | Some(RuntimeEvent::Stopped));
        }
    }

    /// Answers every waiting prompt with `reason` (the session is going away).
    fn end_all(&mut self, reason: StopReason) {
        for responder in self.requests.drain(..) {
            let _ = responder.respond(PromptResponse::new(reason));
        }
        for (_, responder) in self.replies.drain(..) {
            let _ = responder.respond(PromptResponse::new(reason));
        }
    }

    async fn on_command(&mut self, command: Command) -> Result<(), Error> {
        match command {
            Command::Prompt(blocks, responder) => self.on_prompt(&blocks, responder).await,
            Command::Cancel => self.on_cancel(),
            Command::SetMode(mode, responder) => self.on_set_mode(&mode, responder),
            Command::SetConfig(request, responder) => self.on_set_config(request, responder),
            Command::Answered { id, answer } => {
                if matches!(answer, Answer::Limit(_) | Answer::Plan(_)) {
                    self.close_question_call(&id)?;
                }
                if self.open_questions.remove(&id) {
                    self.submit(Op::Answer { id, answer });
                }
                Ok(())
            }
        }
    }

    /// `session/prompt`: a built-in command, or a message for the runtime.
    async fn on_prompt(
        &mut self,
        blocks: &[ContentBlock],
        responder: Responder<PromptResponse>,
    ) -> Result<(), Error> {
        let text = message_text(blocks, &self.root, self.files.as_ref()).await;
        if text.trim().is_empty() {
            return responder.respond_with_error(
                Error::invalid_params().data(serde_json::json!("the prompt is empty")),
            );
        }
        self.cancelled = false;
        match parse_command(&text) {
            Some(Ok(SlashCommand::Request(op))) => {
                self.requests.push_back(responder);
                self.submit(op);
            }
            Some(Ok(SlashCommand::Reply(op, kind))) => {
                self.replies.push_back((kind, responder));
                self.submit(op);
            }
            Some(Err(message)) => {
                self.say(message)?;
                responder.respond(PromptResponse::new(StopReason::EndTurn))?;
            }
            None => {
                self.requests.push_back(responder);
                self.submit(Op::UserMessage { text });
            }
        }
        Ok(())
    }

    /// `session/cancel`: interrupts the running request; prompts waiting behind it (which the runtime
    /// drops) end as cancelled now.
    fn on_cancel(&mut self) -> Result<(), Error> {
        if self.requests.is_empty() {
            return Ok(());
        }
        self.cancelled = true;
        let keep = usize::from(self.request_running);
        for responder in self.requests.drain(keep..) {
            responder.respond(PromptResponse::new(StopReason::Cancelled))?;
        }
        self.submit(Op::Interrupt);
        Ok(())
    }

    /// `session/set_mode`.
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
        if mode != crate::modes::PLAN_MODE {
            self.mode_before_plan = mode;
        }
        self.mode = mode;
        responder.respond(SetSessionModeResponse::new())
    }

    /// `session/set_config_option`: the model (answered once the runtime switched).
    fn on_set_config(
        &mut self,
        request: SetSessionConfigOptionRequest,
        responder: Responder<SetSessionConfigOptionResponse>,
    ) -> Result<(), Error> {
        let model = match (&*request.config_id.to_string(), &request.value) {
            (MODEL_OPTION, SessionConfigOptionValue::ValueId { value }) => value.to_string(),
            (id, _) => {
                return responder.respond_with_error(Error::invalid_params().data(
                    serde_json::json!(format!("no config option `{id}` with that value")),
                ));
            }
        };
        if let Some(previous) = self.pending_model.take() {
            previous
                .respond_with_error(Error::new(-32603, "superseded by a later model change"))?;
        }
        self.pending_model = Some(responder);
        self.submit(Op::SetModel { model });
        Ok(())
    }

    /// The model changed: answers the waiting `set_config_option`, or tells the editor.
    pub(crate) fn on_model_changed(&mut self, model: String) -> Result<(), Error> {
        self.view.model.model = model;
        let options = model_options(&self.models, self.model());
        match self.pending_model.take() {
            Some(responder) => responder.respond(SetSessionConfigOptionResponse::new(options)),
            None => self.send(SessionUpdate::ConfigOptionUpdate(
                agent_client_protocol::v1::schema::ConfigOptionUpdate::new(options),
            )),
        }
    }

    /// An operation failed: the model switch, a command's reply or a request that could not start
    /// get the error; anything else is said.
    pub(crate) fn on_op_failed(&mut self, message: String) -> Result<(), Error> {
        if let Some(responder) = self.pending_model.take() {
            return responder.respond_with_error(Error::new(-32603, message));
        }
        if let Some((_, responder)) = self.replies.pop_front() {
            self.say(message)?;
            return responder.respond(PromptResponse::new(StopReason::EndTurn));
        }
        if !self.request_running
            && let Some(responder) = self.requests.pop_front()
        {
            return responder.respond_with_error(Error::new(-32603, message));
        }
        self.say(message)
    }

    /// A built-in command's answer: shown as the agent's message, ending its prompt.
    pub(crate) fn on_reply(&mut self, kind: ReplyKind, text: String) -> Result<(), Error> {
        let Some(at) = self.replies.iter().position(|(k, _)| *k == kind) else {
            return Ok(());
        };
        let Some((_, responder)) = self.replies.remove(at) else {
            return Ok(());
        };
        self.say(text)?;
        responder.respond(PromptResponse::new(StopReason::EndTurn))
    }
}
