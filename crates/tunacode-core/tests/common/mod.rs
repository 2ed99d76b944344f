//! Building an agent against a fake provider for the engine tests.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod runtime_kit;

use std::sync::Arc;

use tunacode_core::{
    Agent, AgentOptions, AgentParts, Approver, ClientCache, EventSink, PruneConfig, Session,
    SessionHandle,
};
use tunacode_llm::{ModelId, ProviderSettings};
use tunacode_store::SessionStore;
use tunacode_testkit::FakeProvider;
use tunacode_tools::{ToolSet, Workspace};

/// The options the engine tests use (10 iterations, a small pruning budget).
pub fn options() -> AgentOptions {
    let id = ModelId::parse("openai:test-model").unwrap();
    AgentOptions {
        model: id.to_string(),
        provider_model: id.model.clone(),
        max_iterations: 10,
        request_timeout: None,
        tool_max_retries: 2,
        max_parallel: 4,
        prune: PruneConfig {
            protect_tokens: 10,
            minimum_tokens: 1,
        },
        system_prompt: "SYSTEM".into(),
        max_output_tokens: None,
        reasoning_effort: None,
        vision: None,
        pricing: None,
        guidance: Default::default(),
        context: Default::default(),
        checks: Default::default(),
        hooks: Default::default(),
    }
}

/// An agent with `options`, the built-in tools on the session's todo list, and a session store in
/// `dir/.sessions`.
pub fn agent_with(
    fake: &FakeProvider,
    dir: &std::path::Path,
    approver: Arc<dyn Approver>,
    session: Session,
    options: AgentOptions,
    events: EventSink,
) -> Agent {
    let id = tunacode_llm::ModelId::parse(&options.model).unwrap();
    let settings = ProviderSettings::for_model(&id, Some(fake.base_url()), None).unwrap();
    let tools = ToolSet::builtin_with_todos(&session.todos);
    Agent::new(AgentParts {
        options,
        provider: settings,
        clients: Arc::new(ClientCache::default()),
        tools,
        dynamic_tools: None,
        workspace: Workspace::new(dir),
        exec: Default::default(),
        checkpoints: None,
        approver,
        session: SessionHandle::new(session),
        store: Some(SessionStore::new(dir.join(".sessions"))),
        events,
        budget: tunacode_core::budget::Budget::unlimited(),
        fallbacks: Default::default(),
        lsp: None,
    })
}

/// An agent with the default test options and no event listener.
pub fn agent(
    fake: &FakeProvider,
    dir: &std::path::Path,
    approver: Arc<dyn Approver>,
    session: Session,
) -> Agent {
    agent_with(fake, dir, approver, session, options(), EventSink::none())
}

/// A new session in `dir`.
pub fn new_session(dir: &std::path::Path) -> Session {
    Session::new(dir, "openai:test-model")
}
