//! The runtime's task: one loop that takes operations, runs one request at a time (messages sent
//! meanwhile wait in order), and reports everything as events. It routes each operation to the handler of its family (sessions,
//! MCP, sandbox, undo, the user's shell; the model operations are functions of `config_ops.rs`) and
//! installs what they hand back; the requests it runs itself, in turn (`Requests`).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tunacode_protocol::AgentEvent;
use tunacode_store::SessionStore;

use crate::agent::{Agent, FallbackModel};
use crate::checkpoints::Checkpoints;
use crate::events::EventSink;
use crate::mcp::McpManager;
use crate::runtime::custom_ops;
use crate::runtime::events::{OpFailure, RuntimeEvent, SessionNotice};
use crate::runtime::handle::{RuntimeConfig, RuntimeError, SessionChoice};
use crate::runtime::mcp_ops::McpOps;
use crate::runtime::ops::Op;
use crate::runtime::parts::Parts;
use crate::runtime::policy::Policy;
use crate::runtime::questions::Questions;
use crate::runtime::requests::{Joined, Message, Requests, Running, Work};
use crate::runtime::rewind_ops::RewindOps;
use crate::runtime::sandbox::SandboxOps;
use crate::runtime::sandbox_setup;
use crate::runtime::session_ops::SessionOps;
use crate::runtime::sessions::{self, Opened};
use crate::runtime::shell_op::UserShell;
use crate::settings::RuntimeSettings;
use tunacode_protocol::runtime::ProjectFileKind;

/// How long a shutdown waits for the running request to save its session.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// The runtime's state, owned by its task.
pub(crate) struct Actor {
    pub(super) parts: Parts,
    pub(super) agent: Arc<Agent>,
    pub(super) requests: Requests,
    /// The user's `!` commands.
    shell: UserShell,
    /// New, resumed and listed sessions.
    pub(super) sessions: SessionOps,
    /// The MCP servers.
    pub(super) mcp: McpOps,
    /// The sandbox commands run in.
    pub(super) sandbox: SandboxOps,
    /// Undo, rewind, redo and fork.
    pub(super) rewind: RewindOps,
}

/// What woke the loop.
enum Wake {
    Op(Option<Op>),
    Ended(Joined),
}

impl Actor {
    /// Opens the configured session and builds the engine over it.
    pub(crate) async fn open(
        config: RuntimeConfig,
        events: EventSink,
    ) -> Result<Actor, RuntimeError> {
        let settings = config.settings;
        // The sandbox probe starts a short process: it runs while the session opens, and
        // `sandbox_state` below finds its answer.
        drop(tokio::task::spawn_blocking(tunacode_tools::sandbox_support));
        let store = SessionStore::new(&settings.paths.sessions_dir);
        let opened = open_session(&store, &settings, config.session).await?;
        let mcp = mcp_for(&settings, &events);
        let policy = policy_for(&settings, (config.yolo, config.interactive), &mcp, &events);
        let sandbox = sandbox_setup::sandbox_state(&settings).await;
        policy.set_sandbox(sandbox.state);
        let (fallbacks, mut notices) = fallbacks_of(&settings).await?;
        notices.extend(sandbox.notice);
        let checkpoints = checkpoints_for(&settings);
        let exec = Arc::new(sandbox.exec);
        let lsp = crate::lsp::LspManager::new(
            settings.cwd.clone(),
            exec.clone(),
            &settings.lsp,
            events.clone(),
        );
        let parts = Parts {
            subagents: crate::subagents::host::host_for(&settings).await,
            lsp: Arc::new(lsp),
            budget: crate::budget::Budget::for_runtime(settings.budget, &settings.paths),
            fallbacks: Arc::new(fallbacks),
            model: settings.model.clone(),
            settings,
            clients: Arc::new(config.clients.unwrap_or_default()),
            extra_tools: config.extra_tools,
            editor: config.editor_files,
            exec,
            checkpoints: checkpoints.clone(),
            mcp: mcp.clone(),
            policy,
            store: store.clone(),
            events,
        };
        let actor = Actor {
            agent: Arc::new(parts.engine(opened.session)),
            sessions: SessionOps::new(store.clone(), parts.settings.cwd.clone()),
            mcp: McpOps::new(mcp),
            sandbox: SandboxOps::new(sandbox.proxy),
            rewind: RewindOps::new(checkpoints, store.clone()),
            parts,
            requests: Requests::default(),
            shell: UserShell::default(),
        };
        actor.announce_start(opened.resumed, opened.notice, notices);
        if config.plan_mode {
            actor.agent.set_plan_mode(true);
        }
        Ok(actor)
    }

    /// What the front end learns first: the session, the custom commands, what was skipped or is
    /// weaker than configured; then the MCP servers start.
    fn announce_start(&self, resumed: bool, notice: Option<SessionNotice>, notices: Vec<String>) {
        self.announce_session(resumed, notice);
        self.parts
            .events
            .send(custom_ops::announce_commands(&self.parts.settings));
        let skipped = self.parts.settings.skipped_files.iter().map(|s| {
            format!("{s}; instruction files, skills and commands must be regular files inside their own folder")
        });
        let agent_types = self.parts.settings.agent_types.problems.iter().cloned();
        for message in notices.into_iter().chain(skipped).chain(agent_types) {
            self.parts.events.emit(AgentEvent::Notice {
                level: tunacode_protocol::NoticeLevel::Warning,
                message,
            });
        }
        let settings = &self.parts.settings;
        use crate::project_file_state::waiting;
        let checks = waiting(ProjectFileKind::Checks, settings.project_checks.as_ref());
        let hooks = waiting(ProjectFileKind::Hooks, settings.project_hooks.as_ref());
        let agents = waiting(
            ProjectFileKind::Agents,
            settings.agent_types.project.as_ref(),
        );
        for pending in checks.into_iter().chain(hooks).chain(agents) {
            self.parts
                .events
                .send(RuntimeEvent::ProjectFilePending(pending));
        }
        if let Some(pending) = self.mcp.start(&self.parts.settings.mcp) {
            self.parts.events.send(pending);
        }
    }

    /// The loop: until `Shutdown`, or `Finish` and nothing left to do.
    pub(crate) async fn run(mut self, mut ops: mpsc::UnboundedReceiver<Op>) {
        self.send_budget(false).await;
        let resumed = !self.agent.session().lock().messages.is_empty();
        self.session_started(if resumed { "resume" } else { "startup" })
            .await;
        let mut end_reason = "prompt_input_exit";
        loop {
            if self.requests.done() {
                break;
            }
            let wake = tokio::select! {
                op = ops.recv() => Wake::Op(op),
                joined = self.requests.ended() => Wake::Ended(joined),
            };
            match wake {
                Wake::Op(None | Some(Op::Shutdown)) => {
                    self.shutdown().await;
                    end_reason = "other";
                    break;
                }
                Wake::Op(Some(op)) => self.handle(op).await,
                Wake::Ended(joined) => {
                    self.request_ended(joined);
                    self.send_budget(false).await;
                    self.start_next().await;
                }
            }
        }
        self.settle_snapshots(end_reason == "other").await;
        self.session_ending(end_reason).await;
        self.parts.lsp.stop().await;
        self.mcp.shutdown().await;
        let history = self.agent.session().lock().messages.clone();
        self.parts.events.send(RuntimeEvent::Stopped);
        drop(self);
        super::blocking::free_aside(history);
    }

    /// Waits (a bounded time: shorter when stopped) for the last turn's snapshots to be recorded,
    /// so a run that ends right after its answer still leaves its prompt rewindable.
    async fn settle_snapshots(&self, stopped: bool) {
        let bound = Duration::from_secs(if stopped { 2 } else { 60 });
        let lock = self.parts.checkpoints.turn_lock();
        if tokio::time::timeout(bound, lock.lock()).await.is_err() {
            tracing::warn!("the last turn's rewind snapshot did not finish before the end");
        }
    }

    /// Starts the next waiting work; one that cannot start (a custom command whose model is not
    /// usable, said as `OpFailed`) makes way for the one after it.
    async fn start_next(&mut self) {
        while !self.requests.busy() {
            let Some(next) = self.requests.next() else {
                return;
            };
            self.emit_queue();
            match next {
                Work::Message(message) => self.start_request(message).await,
                Work::Compact(focus) => self.start_compaction(focus),
            }
        }
    }

    /// Plan mode on or off, saved at once when idle (a running request saves it when it ends).
    async fn on_set_plan_mode(&mut self, active: bool) {
        self.agent.set_plan_mode(active);
        if !self.requests.busy() {
            let saved = self
                .sessions
                .save_between_requests(self.agent.session())
                .await;
            if let Err(e) = saved {
                self.fail(e);
            }
        }
    }

    /// Routes `op` to the handler of its family.
    async fn handle(&mut self, op: Op) {
        match op {
            Op::UserMessage {
                text,
                attachments,
                images,
            } => {
                self.on_user_message(Message {
                    text,
                    attachments,
                    images,
                })
                .await
            }
            Op::Interrupt => self.on_interrupt(),
            Op::Compact { focus } => self.on_compact(focus),
            Op::Finish => self.requests.finish(),
            Op::Answer { id, answer } => {
                let answered = self.parts.policy.questions.answer(&id, answer);
                self.report(answered.map(|()| None));
            }
            Op::Shell { command } => self.shell.run(command, &self.agent, &self.parts.events),
            Op::SetModel { model } => self.on_set_model(model).await,
            Op::SaveKey { var, key, model } => self.on_save_key(var, key, model).await,
            Op::SaveTheme { name } => self.on_save_theme(name).await,
            Op::SetContextWindow { tokens } => self.on_set_context_window(tokens).await,
            Op::ListServerModels => self.on_list_server_models(),
            Op::NewSession | Op::ResumeSession { .. } | Op::ListSessions => {
                self.on_session_op(op).await
            }
            Op::ListMcp | Op::ApproveProjectMcp | Op::AddMcpServers { .. } => {
                self.on_mcp_op(op).await
            }
            Op::DescribeProjectFile { .. } | Op::ApproveProjectFile { .. } => {
                self.on_project_file_op(op).await
            }
            Op::DescribeContext => self.on_describe_context().await,
            Op::DescribePermissions => self.on_describe_permissions(),
            Op::DescribeBudget | Op::SetBudget { .. } => self.on_budget_op(op).await,
            Op::SetSandbox { mode } => self.on_set_sandbox(&mode).await,
            Op::Undo { .. } | Op::Rewind { .. } | Op::Redo | Op::ListTurns | Op::Fork { .. } => {
                self.on_rewind_op(op).await
            }
            Op::Export { format, path } => self.on_export(format, path).await,
            Op::SetPlanMode { active } => self.on_set_plan_mode(active).await,
            Op::SetYolo { on } => {
                self.parts.policy.set_yolo(on);
                self.parts.events.send(RuntimeEvent::YoloChanged { on });
            }
            Op::SetInteractive { on } => self.parts.policy.set_interactive(on),
            Op::CheckSetup(_) | Op::SaveSetup(_) => self.fail(OpFailure::Invalid(
                "setup is done: change the model with /model, keys with /model's key prompt".into(),
            )),
            Op::Shutdown => {}
        }
    }

    /// Sends a handler's answer, or its failure.
    pub(super) fn report(&self, result: Result<Option<RuntimeEvent>, OpFailure>) {
        match result {
            Ok(Some(event)) => self.parts.events.send(event),
            Ok(None) => {}
            Err(failure) => self.fail(failure),
        }
    }

    pub(super) fn fail(&self, failure: OpFailure) {
        self.parts.events.send(RuntimeEvent::OpFailed(failure));
    }

    fn emit_queue(&self) {
        self.parts.events.send(RuntimeEvent::Queued {
            pending: self.requests.pending(),
        });
    }

    async fn on_user_message(&mut self, message: Message) {
        if message.text.trim().is_empty() && message.attachments.is_empty() {
            return;
        }
        if self.requests.busy() {
            self.requests.wait(Work::Message(message));
            self.emit_queue();
        } else {
            self.start_request(message).await;
        }
    }

    /// A compaction runs like a request, in turn with the messages (it can be interrupted;
    /// `RequestEnded` reports it).
    fn on_compact(&mut self, focus: Option<String>) {
        if self.requests.busy() {
            self.requests.wait(Work::Compact(focus));
            self.emit_queue();
        } else {
            self.start_compaction(focus);
        }
    }

    fn start_compaction(&mut self, focus: Option<String>) {
        let agent = self.agent.clone();
        let cancel = CancellationToken::new();
        let token = cancel.clone();
        let task = tokio::spawn(async move { agent.compact(focus, token).await });
        self.requests.started(Running { cancel, task });
    }

    fn on_interrupt(&mut self) {
        self.shell.stop();
        if self.requests.interrupt() {
            self.emit_queue();
        }
    }

    async fn shutdown(&mut self) {
        self.shell.stop();
        self.parts.policy.stop_asking();
        if let Some(running) = self.requests.stop() {
            let joined = tokio::time::timeout(SHUTDOWN_GRACE, running.task).await;
            if let Ok(joined) = joined {
                self.request_ended(joined);
            }
        }
    }

    pub(super) fn busy(&self, what: &'static str) -> bool {
        let busy = self.requests.busy();
        if busy {
            self.fail(OpFailure::Busy(what.to_string()));
        }
        busy
    }
}

/// The shadow store of the working directory, bounded as configured.
fn checkpoints_for(settings: &RuntimeSettings) -> Arc<Checkpoints> {
    Arc::new(
        Checkpoints::new(&settings.paths.data_dir(), &settings.cwd)
            .with_limits(settings.rewind.clone()),
    )
}

/// The approval policy of a runtime over `settings`.
fn policy_for(
    settings: &RuntimeSettings,
    (yolo, interactive): (bool, bool),
    mcp: &McpManager,
    events: &EventSink,
) -> Arc<Policy> {
    let questions = Questions::new(events.clone());
    Arc::new(
        Policy::new(questions, &settings.tool_ignore, yolo, interactive)
            .with_mcp(mcp.clone())
            .with_rules(settings.permissions.clone(), &settings.cwd)
            .with_protected(settings.exec.sandbox.protected.clone()),
    )
}

/// The fallback models of `settings`, resolved off the async threads (reading the config), and
/// why those left out are (an unknown provider, no key).
async fn fallbacks_of(
    settings: &RuntimeSettings,
) -> Result<(Vec<FallbackModel>, Vec<String>), RuntimeError> {
    if settings.fallback_models.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let settings = settings.clone();
    let resolve = move || {
        let (mut models, mut problems) = (Vec::new(), Vec::new());
        for name in &settings.fallback_models {
            match settings.for_model(name) {
                Ok(m) => models.push(FallbackModel {
                    options: m.options,
                    provider: m.provider,
                }),
                Err(e) => problems.push(format!("The fallback model {name} is left out: {e}")),
            }
        }
        (models, problems)
    };
    tokio::task::spawn_blocking(resolve)
        .await
        .map_err(|e| RuntimeError::Internal(e.to_string()))
}

/// The MCP servers' manager, reporting each change as an event.
fn mcp_for(settings: &RuntimeSettings, events: &EventSink) -> McpManager {
    let events = events.clone();
    McpManager::with_env(
        &settings.cwd,
        Arc::new(move |status| events.send(RuntimeEvent::McpServer(status))),
        settings.exec.env.clone(),
    )
}

/// Opens the session a runtime starts with, off the async threads.
async fn open_session(
    store: &SessionStore,
    settings: &RuntimeSettings,
    choice: SessionChoice,
) -> Result<Opened, RuntimeError> {
    let (store, cwd) = (store.clone(), settings.cwd.clone());
    let model = settings.model.options.model.clone();
    tokio::task::spawn_blocking(move || sessions::open(&store, &cwd, &model, &choice))
        .await
        .map_err(|e| RuntimeError::Internal(e.to_string()))?
        .map_err(RuntimeError::from)
}
