//! [`Agent`]: the engine's public face. One agent serves one session; front ends call
//! [`Agent::process_request`] per user message and read the event stream.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tunacode_llm::ProviderSettings;
use tunacode_protocol::FinishReason;
use tunacode_store::SessionStore;
use tunacode_tools::{ToolSet, Workspace};

use crate::approval::Approver;
use crate::client_cache::ClientCache;
use crate::error::RequestError;
use crate::events::EventSink;
use crate::history::PruneConfig;
use crate::orchestrator::{RequestRun, StopCause};
use crate::session::SessionHandle;

/// How the engine runs requests.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentOptions {
    /// `provider:model` (recorded in the session).
    pub model: String,
    /// The model's name at the provider.
    pub provider_model: String,
    /// Model calls per request.
    pub max_iterations: u32,
    /// Whole-request time limit.
    pub request_timeout: Option<Duration>,
    /// Retries of a tool that failed for a passing reason.
    pub tool_max_retries: u32,
    /// Parallel read-only calls.
    pub max_parallel: usize,
    /// History pruning budget.
    pub prune: PruneConfig,
    /// The system prompt.
    pub system_prompt: String,
    /// Tools that never ask for approval.
    pub tool_ignore: Vec<String>,
    /// Upper bound on output tokens per call.
    pub max_output_tokens: Option<u32>,
    /// Reasoning effort (`low`, `medium`, `high`) for reasoning models; `None`: the provider's default.
    pub reasoning_effort: Option<String>,
    /// The model's prices, to cost calls the provider does not price itself.
    pub pricing: Option<tunacode_llm::models::Pricing>,
    /// How the loop steers (self-evaluation, no-progress alert, fallback response).
    pub guidance: crate::guidance::GuidanceOptions,
}

/// How a request finished.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    /// Why it stopped.
    pub reason: FinishReason,
    /// Iterations run.
    pub iterations: u32,
    /// The last text the model showed the user (marker stripped).
    pub response: String,
    /// The request's id.
    pub request_id: String,
}

/// The agent engine for one session.
pub struct Agent {
    pub(crate) options: AgentOptions,
    pub(crate) provider: ProviderSettings,
    pub(crate) clients: Arc<ClientCache>,
    pub(crate) tools: ToolSet,
    pub(crate) workspace: Workspace,
    pub(crate) approver: Arc<dyn Approver>,
    pub(crate) session: SessionHandle,
    pub(crate) store: Option<SessionStore>,
    pub(crate) events: EventSink,
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
    /// An agent speaking to `provider`. `store` is where the session is saved after every request
    /// (`None`: not saved).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        options: AgentOptions,
        provider: ProviderSettings,
        clients: ClientCache,
        tools: ToolSet,
        workspace: Workspace,
        approver: Arc<dyn Approver>,
        session: SessionHandle,
        store: Option<SessionStore>,
        events: EventSink,
    ) -> Self {
        Agent {
            options,
            provider,
            clients: Arc::new(clients),
            tools,
            workspace,
            approver,
            session,
            store,
            events,
        }
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
            workspace: self.workspace.clone(),
            approver: self.approver.clone(),
            session: self.session.clone(),
            store: self.store.clone(),
            events: self.events.clone(),
        }
    }

    /// The same agent working on another session, with tools bound to that session (its todo list).
    pub fn with_session(&self, session: SessionHandle, tools: ToolSet) -> Agent {
        Agent {
            options: self.options.clone(),
            provider: self.provider.clone(),
            clients: self.clients.clone(),
            tools,
            workspace: self.workspace.clone(),
            approver: self.approver.clone(),
            session,
            store: self.store.clone(),
            events: self.events.clone(),
        }
    }

    /// The store sessions are saved in.
    pub fn store(&self) -> Option<&SessionStore> {
        self.store.as_ref()
    }

    /// The workspace.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// Switches plan mode on or off (only read-only tools and the plan tools while on).
    pub fn set_plan_mode(&self, active: bool) {
        self.session.lock().plan_mode = active;
        self.events
            .emit(tunacode_protocol::AgentEvent::PlanModeChanged { active });
    }

    /// Tools that never ask for approval.
    pub(crate) fn no_approval(&self) -> HashSet<String> {
        self.options.tool_ignore.iter().cloned().collect()
    }

    /// Processes one user message (seed 000 §1.1 `process_request`). Cancelling `cancel` aborts the
    /// request: partial text is kept as `[INTERRUPTED]`, running tools are cancelled, the session stays
    /// valid and is saved. The global timeout takes the same path.
    pub async fn process_request(
        &self,
        message: &str,
        cancel: CancellationToken,
    ) -> Result<RunOutcome, RequestError> {
        let run_token = CancellationToken::new();
        let cause = Arc::new(std::sync::Mutex::new(None::<StopCause>));
        let finished = CancellationToken::new();
        let watcher = {
            let (run_token, cause, finished) = (run_token.clone(), cause.clone(), finished.clone());
            let timeout = self.options.request_timeout;
            tokio::spawn(async move {
                let timer = async {
                    match timeout {
                        Some(t) => tokio::time::sleep(t).await,
                        None => std::future::pending().await,
                    }
                };
                let stop = tokio::select! {
                    _ = finished.cancelled() => return,
                    _ = cancel.cancelled() => StopCause::Abort,
                    _ = timer => StopCause::Timeout,
                };
                *cause.lock().unwrap_or_else(|p| p.into_inner()) = Some(stop);
                run_token.cancel();
            })
        };
        let result = RequestRun::new(self, message, run_token, cause).run().await;
        finished.cancel();
        let _ = watcher.await;
        result
    }
}
