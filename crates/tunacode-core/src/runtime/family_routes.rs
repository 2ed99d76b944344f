//! What the actor does with an operation of a handler family: it checks the busy rule, calls the
//! handler, and installs what comes back (a new engine over another session, model or sandbox) or
//! sends it. The engine is replaced, never changed in place, so a request that runs keeps its own.

use std::sync::Arc;

use tunacode_protocol::runtime::Secret;

use crate::runtime::actor::Actor;
use crate::runtime::budget_ops::{budget_view, set_cap};
use crate::runtime::config_ops::{resolve_model, save_key};
use crate::runtime::events::{ModelView, RuntimeEvent, SessionNotice, SessionView};
use crate::runtime::ops::Op;
use crate::runtime::sandbox::{SandboxChanged, describe_permissions};
use crate::session::Session;

impl Actor {
    pub(super) async fn on_set_model(&mut self, model: String) {
        if self.busy("switch models") {
            return;
        }
        match resolve_model(&self.parts.settings, model).await {
            Ok(model) => {
                self.agent = Arc::new(
                    self.agent
                        .with_model(model.options.clone(), model.provider.clone()),
                );
                self.parts.model = model;
                self.parts
                    .events
                    .send(RuntimeEvent::ModelChanged(self.model_view()));
            }
            Err(failure) => self.fail(failure),
        }
    }

    /// Saves the key, then (only once it is saved) switches to the model that needed it.
    pub(super) async fn on_save_key(&mut self, var: String, key: Secret, model: Option<String>) {
        let file = self.parts.settings.paths.config_file.clone();
        match (save_key(file, var, key).await, model) {
            (Ok(()), Some(model)) => self.on_set_model(model).await,
            (Ok(()), None) => {}
            (Err(failure), _) => self.fail(failure),
        }
    }

    /// `/model`: the models the current provider's server lists, asked without holding up the
    /// runtime (a server that does not answer lists none; it is logged).
    pub(super) fn on_list_server_models(&self) {
        let provider = self.parts.model.provider.clone();
        let events = self.parts.events.clone();
        tokio::spawn(async move {
            let models = tunacode_llm::server_models(&provider)
                .await
                .unwrap_or_else(|e| {
                    tracing::info!(error = %e, "the server's models could not be listed");
                    Vec::new()
                });
            events.send(RuntimeEvent::ServerModels {
                provider: provider.provider.clone(),
                models,
            });
        });
    }

    /// `/context window N`: saved for the current model, which is then resolved again with it.
    pub(super) async fn on_set_context_window(&mut self, tokens: u64) {
        let file = self.parts.settings.paths.config_file.clone();
        let model = self.parts.model.options.model.clone();
        let key = model.clone();
        let saved = super::blocking::off_thread("saving the context window", move || {
            tunacode_store::save_model_setting(&file, &key, "context_window", tokens.into())
                .map_err(|e| {
                    super::events::OpFailure::Settings(format!(
                        "The window could not be saved: {e}"
                    ))
                })
        })
        .await;
        match saved {
            Ok(()) => self.on_set_model(model).await,
            Err(failure) => self.fail(failure),
        }
    }

    pub(super) async fn on_save_theme(&mut self, name: String) {
        let file = self.parts.settings.paths.config_file.clone();
        if let Err(failure) = super::config_ops::save_theme(file, name).await {
            self.fail(failure);
        }
    }

    pub(super) async fn on_session_op(&mut self, op: Op) {
        let model = self.parts.model.options.model.clone();
        match op {
            Op::NewSession if !self.busy("start a new session") => {
                let session = self.sessions.fresh(&model);
                self.session_ending("clear").await;
                self.install_session(session, false, None);
                self.session_started("clear").await;
            }
            Op::ResumeSession { id } if !self.busy("resume a session") => {
                match self.sessions.resume(id, model).await {
                    Ok(opened) => {
                        self.session_ending("resume").await;
                        self.install_session(opened.session, true, opened.notice);
                        self.session_started("resume").await;
                    }
                    Err(failure) => self.fail(failure),
                }
            }
            Op::ListSessions => self.sessions.list(self.parts.events.clone()),
            _ => {}
        }
    }

    pub(super) async fn on_mcp_op(&mut self, op: Op) {
        match op {
            Op::ListMcp => self.parts.events.send(self.mcp.list()),
            Op::AddMcpServers { servers } => self.mcp.add(servers),
            Op::ApproveProjectMcp => {
                let settings = &self.parts.settings;
                let approved = self
                    .mcp
                    .approve_project(settings.paths.clone(), settings.cwd.clone())
                    .await;
                self.report(approved.map(|()| None));
            }
            _ => {}
        }
    }

    pub(super) async fn on_set_sandbox(&mut self, mode: &str) {
        if self.busy("change the sandbox") {
            return;
        }
        let changed = self
            .sandbox
            .set_mode(mode, &mut self.parts.settings, &self.parts.policy)
            .await;
        match changed {
            Ok(SandboxChanged { exec, notice }) => {
                self.parts.exec = exec;
                self.agent = Arc::new(self.agent.with_exec(self.parts.exec.clone()));
                if let Some((level, message)) = notice {
                    let event = tunacode_protocol::AgentEvent::Notice { level, message };
                    self.parts.events.emit(event);
                }
                self.on_describe_permissions();
            }
            Err(failure) => self.fail(failure),
        }
    }

    pub(super) fn on_describe_permissions(&self) {
        let text = describe_permissions(&self.parts.settings, &self.parts.policy, &self.parts.exec);
        self.parts.events.send(RuntimeEvent::Permissions(text));
    }

    /// `/budget`: says the caps, or sets one first.
    pub(super) async fn on_budget_op(&mut self, op: Op) {
        if let Op::SetBudget { scope, usd, tokens } = op
            && let Err(failure) = set_cap(&self.parts.budget, &self.agent, scope, (usd, tokens))
        {
            return self.fail(failure);
        }
        self.send_budget(true).await;
    }

    /// Sends the caps with their spend (`always`: even when none is set).
    pub(super) async fn send_budget(&self, always: bool) {
        if !always && !self.parts.budget.caps().any() {
            return;
        }
        let view = budget_view(self.parts.budget.clone(), &self.agent).await;
        self.report(view.map(|v| Some(RuntimeEvent::Budget(v))));
    }

    /// Makes `session` the current one (a fresh engine over it) and announces it.
    pub(super) fn install_session(
        &mut self,
        session: Session,
        resumed: bool,
        notice: Option<SessionNotice>,
    ) {
        self.agent = Arc::new(self.parts.engine(session));
        self.parts.policy.reset_session();
        self.announce_session(resumed, notice);
    }

    pub(super) fn announce_session(&self, resumed: bool, notice: Option<SessionNotice>) {
        let view = self.session_view(resumed, notice);
        self.parts
            .events
            .send(RuntimeEvent::SessionOpened(Box::new(view)));
    }

    fn model_view(&self) -> ModelView {
        ModelView {
            model: self.parts.model.options.model.clone(),
            context_window: self.parts.model.context_window,
        }
    }

    fn session_view(&self, resumed: bool, notice: Option<SessionNotice>) -> SessionView {
        let s = self.agent.session().lock();
        SessionView {
            session_id: s.id.clone(),
            workspace: self.parts.settings.cwd.clone(),
            messages: s.messages.clone(),
            model: self.model_view(),
            plan_mode: s.plan_mode,
            usage: s.usage.session_total,
            todos: s.todos.items(),
            resumed,
            notice,
        }
    }
}
