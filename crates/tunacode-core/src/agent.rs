//! [`Agent`]: the engine's public face. One agent serves one session; front ends call
//! [`Agent::process_request`] per user message and read the event stream.

use std::sync::Arc;

use tunacode_llm::ProviderSettings;
use tunacode_store::SessionStore;
use tunacode_tools::{ExecPolicy, ToolSet, ToolSource, Workspace};

use crate::approval::Approver;
use crate::client_cache::ClientCache;
use crate::events::EventSink;
use crate::session::SessionHandle;

pub use crate::agent_options::AgentOptions;
pub use tunacode_protocol::runtime::RunOutcome;

/// What an [`Agent`] is built from. Front ends never build one: the runtime
/// ([`crate::Runtime`]) does; engine tests may.
pub struct AgentParts {
    /// How the engine runs requests.
    pub options: AgentOptions,
    /// How to reach the provider.
    pub provider: ProviderSettings,
    /// Model clients, shared across agents of one runtime.
    pub clients: Arc<ClientCache>,
    /// The tools offered to the model.
    pub tools: ToolSet,
    /// Tools that come and go (MCP servers'), asked before every model request.
    pub dynamic_tools: Option<Arc<dyn ToolSource>>,
    /// The directory the tools work in.
    pub workspace: Workspace,
    /// How commands run (sandbox, environment).
    pub exec: Arc<ExecPolicy>,
    /// Where the workspace is recorded before each request's first change, for undo (`None`: not).
    pub checkpoints: Option<Arc<crate::checkpoints::Checkpoints>>,
    /// Who approves writes and commands.
    pub approver: Arc<dyn Approver>,
    /// The session worked on.
    pub session: SessionHandle,
    /// Where the session is saved after every request (`None`: not saved).
    pub store: Option<SessionStore>,
    /// Where events go.
    pub events: EventSink,
    /// The spend caps every model call is checked against.
    pub budget: Arc<crate::budget::Budget>,
    /// The models a call falls back to, in order, when its own is overloaded.
    pub fallbacks: Arc<Vec<FallbackModel>>,
    /// The language servers whose diagnostics follow edits (`None`: none).
    pub lsp: Option<Arc<crate::lsp::LspManager>>,
}

/// A model a call falls back to when its own model stays overloaded after the client's retries
/// (`settings.fallback_models`, in order), resolved like the main model when the runtime opens.
#[derive(Debug, Clone)]
pub struct FallbackModel {
    /// Its options (the model's name, its prices and limits).
    pub options: AgentOptions,
    /// How to reach it.
    pub provider: ProviderSettings,
}

/// The agent engine for one session.
pub struct Agent {
    pub(crate) options: AgentOptions,
    pub(crate) provider: ProviderSettings,
    pub(crate) clients: Arc<ClientCache>,
    pub(crate) tools: ToolSet,
    pub(crate) dynamic_tools: Option<Arc<dyn ToolSource>>,
    pub(crate) workspace: Workspace,
    pub(crate) exec: Arc<ExecPolicy>,
    pub(crate) checkpoints: Option<Arc<crate::checkpoints::Checkpoints>>,
    pub(crate) approver: Arc<dyn Approver>,
    pub(crate) session: SessionHandle,
    pub(crate) store: Option<SessionStore>,
    pub(crate) events: EventSink,
    pub(crate) budget: Arc<crate::budget::Budget>,
    pub(crate) fallbacks: Arc<Vec<FallbackModel>>,
    pub(crate) lsp: Option<Arc<crate::lsp::LspManager>>,
    /// The sub-agents it may start (`None`: no `task` tool).
    pub(crate) subagents: Option<Arc<crate::subagents::host::Subagents>>,
    /// Which sub-agent this engine is (`None`: the agent's own).
    pub(crate) subagent: Option<tunacode_protocol::runtime::SubagentLabel>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("options", &self.options)
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// An engine from its parts.
    pub fn new(parts: AgentParts) -> Self {
        Agent {
            options: parts.options,
            provider: parts.provider,
            clients: parts.clients,
            tools: parts.tools,
            dynamic_tools: parts.dynamic_tools,
            workspace: parts.workspace,
            exec: parts.exec,
            checkpoints: parts.checkpoints,
            approver: parts.approver,
            session: parts.session,
            store: parts.store,
            events: parts.events,
            budget: parts.budget,
            fallbacks: parts.fallbacks,
            lsp: parts.lsp,
            subagents: None,
            subagent: None,
        }
    }

    /// The engine offering the `task` tool, starting sub-agents of `subagents`.
    pub(crate) fn with_subagents(
        mut self,
        subagents: Option<Arc<crate::subagents::host::Subagents>>,
    ) -> Self {
        self.subagents = subagents;
        self
    }

    /// The models a call falls back to when its own is overloaded.
    pub fn fallbacks(&self) -> &[FallbackModel] {
        &self.fallbacks
    }

    /// The session this agent works on (front ends may read it and append messages).
    pub fn session(&self) -> &SessionHandle {
        &self.session
    }

    /// The options in force.
    pub fn options(&self) -> &AgentOptions {
        &self.options
    }

    /// The provider settings in use.
    pub fn provider(&self) -> &ProviderSettings {
        &self.provider
    }

    /// The same agent speaking to another model (same session, tools, approver, store, events and
    /// client cache). For switching models between requests.
    pub fn with_model(&self, options: AgentOptions, provider: ProviderSettings) -> Agent {
        Agent {
            options,
            provider,
            clients: self.clients.clone(),
            tools: self.tools.clone(),
            dynamic_tools: self.dynamic_tools.clone(),
            workspace: self.workspace.clone(),
            exec: self.exec.clone(),
            checkpoints: self.checkpoints.clone(),
            approver: self.approver.clone(),
            session: self.session.clone(),
            store: self.store.clone(),
            events: self.events.clone(),
            budget: self.budget.clone(),
            fallbacks: self.fallbacks.clone(),
            lsp: self.lsp.clone(),
            subagents: self.subagents.clone(),
            subagent: self.subagent.clone(),
        }
    }

    /// The same agent running commands under another exec policy (a sandbox change between requests).
    pub(crate) fn with_exec(&self, exec: Arc<ExecPolicy>) -> Agent {
        let mut agent = self.with_session(self.session.clone(), self.tools.clone());
        agent.exec = exec;
        agent
    }

    /// The same agent working on another session, with tools bound to that session (its todo list).
    pub fn with_session(&self, session: SessionHandle, tools: ToolSet) -> Agent {
        Agent {
            options: self.options.clone(),
            provider: self.provider.clone(),
            clients: self.clients.clone(),
            tools,
            dynamic_tools: self.dynamic_tools.clone(),
            workspace: self.workspace.clone(),
            exec: self.exec.clone(),
            checkpoints: self.checkpoints.clone(),
            approver: self.approver.clone(),
            session,
            store: self.store.clone(),
            events: self.events.clone(),
            budget: self.budget.clone(),
            fallbacks: self.fallbacks.clone(),
            lsp: self.lsp.clone(),
            subagents: self.subagents.clone(),
            subagent: self.subagent.clone(),
        }
    }

    /// Every tool the model may be offered now: the fixed ones, then those of the dynamic source by
    /// name (a fixed tool keeps its name).
    pub(crate) fn current_tools(&self) -> ToolSet {
        let mut tools = self.tools.clone();
        if let Some(source) = &self.dynamic_tools {
            let mut dynamic = source.tools();
            // A stable order, whatever order the servers came up in.
            dynamic.sort_by(|a, b| a.name().cmp(b.name()));
            for tool in dynamic {
                if tools.get(tool.name()).is_none() {
                    tools.add(tool);
                }
            }
        }
        tools
    }

    /// The store sessions are saved in.
    pub fn store(&self) -> Option<&SessionStore> {
        self.store.as_ref()
    }

    /// The workspace.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// Switches plan mode on or off (while on, writes and commands are refused at dispatch).
    pub fn set_plan_mode(&self, active: bool) {
        self.session.lock().plan_mode = active;
        self.events
            .emit(tunacode_protocol::AgentEvent::PlanModeChanged { active });
    }
}
