//! [`Parts`]: what every engine the runtime builds is made of (settings, clients, tools, the
//! sandbox, the policy, the store, the event sink), and how an engine is built over a session.

use std::sync::Arc;

use tunacode_store::SessionStore;
use tunacode_tools::{EditorFiles, ExecPolicy, Tool, ToolSet, WebFetch, Workspace};

use crate::agent::{Agent, AgentParts};
use crate::checkpoints::Checkpoints;
use crate::client_cache::ClientCache;
use crate::events::EventSink;
use crate::mcp::McpManager;
use crate::runtime::policy::Policy;
use crate::session::{Session, SessionHandle};
use crate::settings::{ModelSettings, RuntimeSettings};
use crate::skills::SkillTool;

/// What every engine the runtime builds is made of.
pub(super) struct Parts {
    pub(super) settings: RuntimeSettings,
    pub(super) model: ModelSettings,
    pub(super) clients: Arc<ClientCache>,
    pub(super) extra_tools: Vec<Arc<dyn Tool>>,
    /// The editor the file tools read and write through (the editor protocol), if any.
    pub(super) editor: Option<Arc<dyn EditorFiles>>,
    /// How the agent's commands run (sandbox, environment).
    pub(super) exec: Arc<ExecPolicy>,
    /// The undo checkpoints of this working directory.
    pub(super) checkpoints: Arc<Checkpoints>,
    pub(super) mcp: McpManager,
    pub(super) policy: Arc<Policy>,
    pub(super) store: SessionStore,
    pub(super) events: EventSink,
    /// The spend caps, shared by every engine (a model switch keeps what was spent).
    pub(super) budget: Arc<crate::budget::Budget>,
    /// The models a call falls back to when its own is overloaded.
    pub(super) fallbacks: Arc<Vec<crate::agent::FallbackModel>>,
    /// The language servers, started as edits need them, stopped with the runtime.
    pub(super) lsp: Arc<crate::lsp::LspManager>,
    /// The sub-agents engines may start (`None`: no `task` tool).
    pub(super) subagents: Option<Arc<crate::subagents::host::Subagents>>,
}

impl Parts {
    /// The working directory, with the editor its files are open in.
    fn workspace(&self) -> Workspace {
        let sandbox = &self.exec.sandbox;
        let workspace = Workspace::new(&self.settings.cwd)
            .with_secrets(sandbox.secrets.clone())
            .with_protected(sandbox.protected.clone());
        match &self.editor {
            Some(editor) => workspace.with_editor(editor.clone()),
            None => workspace,
        }
    }

    /// The engine over `session`: the built-in tools bound to its todo list, plus the extra tools.
    pub(super) fn engine(&self, session: Session) -> Agent {
        let tools = self.tools(&session.todos);
        Agent::new(AgentParts {
            options: self.model.options.clone(),
            provider: self.model.provider.clone(),
            clients: self.clients.clone(),
            tools,
            dynamic_tools: Some(Arc::new(self.mcp.clone())),
            workspace: self.workspace(),
            exec: self.exec.clone(),
            checkpoints: Some(self.checkpoints.clone()),
            approver: self.policy.clone(),
            session: SessionHandle::new(session),
            store: Some(self.store.clone()),
            events: self.events.clone(),
            budget: self.budget.clone(),
            fallbacks: self.fallbacks.clone(),
            lsp: Some(self.lsp.clone()),
        })
        .with_subagents(self.subagents.clone())
    }

    /// The fixed tools: the built-in ones bound to `todos`, `skill` when there are skills, the extra
    /// tools, without the disabled ones.
    pub(super) fn tools(&self, todos: &tunacode_tools::TodoList) -> ToolSet {
        let mut tools = ToolSet::builtin_with_todos(todos);
        tools.add(Arc::new(WebFetch {
            allow_private_hosts: self.settings.web_fetch_private_hosts,
        }));
        if !self.settings.skills.is_empty() {
            tools.add(Arc::new(SkillTool::new(self.settings.skills.clone())));
        }
        for name in &self.settings.disabled_tools {
            tools.remove(name);
        }
        for tool in &self.extra_tools {
            tools.add(tool.clone());
        }
        tools
    }
}
