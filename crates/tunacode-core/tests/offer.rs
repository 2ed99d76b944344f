//! What each model call offers: one tool list for a whole request, so a server that comes up while
//! the request runs changes nothing the provider caches until the next request, which offers it and
//! says so; the plan tools, always offered, change nothing outside plan mode.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;
use tunacode_core::{
    Agent, AgentParts, AutoApprove, ClientCache, EventSink, RuntimeEvent, SessionHandle,
};
use tunacode_llm::{ModelId, ProviderSettings};
use tunacode_protocol::AgentEvent;
use tunacode_store::SessionStore;
use tunacode_testkit::{FakeProvider, Turn};
use tunacode_tools::{
    Tool, ToolContext, ToolError, ToolKind, ToolOutput, ToolSet, ToolSource, Workspace,
};

use common::{new_session, options};

/// A tool that appears late.
struct Late;

#[async_trait]
impl Tool for Late {
    fn name(&self) -> &str {
        "mcp__late__echo"
    }
    fn description(&self) -> &str {
        "Echoes."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn kind(&self) -> ToolKind {
        ToolKind::ReadOnly
    }
    async fn call(&self, _: Map<String, Value>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("echo"))
    }
}

/// A server that is not up when first asked, and up from then on.
#[derive(Default)]
struct ComesUp(AtomicUsize);

impl ToolSource for ComesUp {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        match self.0.fetch_add(1, Ordering::SeqCst) {
            0 => Vec::new(),
            _ => vec![Arc::new(Late)],
        }
    }
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_tool_that_comes_up_mid_request_joins_at_the_next_request_and_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("c1", "list_dir", r#"{"directory": "."}"#)]),
        Turn::text("first done"),
        Turn::text("second done"),
    ]);
    let id = ModelId::parse("openai:test-model").unwrap();
    let session = new_session(dir.path());
    let (events, mut rx) = EventSink::channel();
    let agent = Agent::new(AgentParts {
        options: options(),
        provider: ProviderSettings::for_model(&id, Some(fake.base_url()), None).unwrap(),
        clients: Arc::new(ClientCache::default()),
        tools: ToolSet::builtin_with_todos(&session.todos),
        dynamic_tools: Some(Arc::new(ComesUp::default())),
        workspace: Workspace::new(dir.path()),
        exec: Default::default(),
        checkpoints: None,
        approver: Arc::new(AutoApprove),
        session: SessionHandle::new(session),
        store: Some(SessionStore::new(dir.path().join(".sessions"))),
        events,
        budget: tunacode_core::budget::Budget::unlimited(),
        fallbacks: Default::default(),
        lsp: None,
    });
    agent
        .process_request("first", CancellationToken::new())
        .await
        .unwrap();
    agent
        .process_request("second", CancellationToken::new())
        .await
        .unwrap();
    let requests = fake.requests();
    let (a, b, c) = (
        tool_names(&requests[0].body),
        tool_names(&requests[1].body),
        tool_names(&requests[2].body),
    );
    assert_eq!(a, b, "the tool list holds for the whole request");
    assert!(!a.contains(&"mcp__late__echo".to_string()));
    assert!(c.contains(&"mcp__late__echo".to_string()), "{c:?}");
    let mut said = Vec::new();
    while let Ok(event) = rx.try_recv() {
        if let RuntimeEvent::Agent(AgentEvent::Notice { message, .. }) = event {
            said.push(message);
        }
    }
    assert!(
        said.iter()
            .any(|m| m.contains("offered from now on: mcp__late__echo")),
        "{said:?}"
    );
}

#[tokio::test]
async fn the_plan_tools_offered_outside_plan_mode_change_nothing_and_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[
            ("p1", "present_plan", r##"{"plan": "# Plan\n1. Do it"}"##),
            ("x1", "exit_plan_mode", "{}"),
        ]),
        Turn::text("carrying on"),
    ]);
    let session = new_session(dir.path());
    let (events, mut rx) = EventSink::channel();
    let agent = common::agent_with(
        &fake,
        dir.path(),
        Arc::new(AutoApprove),
        session,
        options(),
        events,
    );
    agent
        .process_request("do it", CancellationToken::new())
        .await
        .unwrap();
    // (The test options prune old tool outputs at once, so the answers are read from the events.)
    assert!(!dir.path().join("PLAN.md").exists(), "no plan was saved");
    let mut answered = 0;
    while let Ok(event) = rx.try_recv() {
        if let RuntimeEvent::Agent(AgentEvent::ToolCallFinished { result, .. }) = &event {
            assert!(result.contains("You are not in plan mode"), "{result}");
            answered += 1;
        }
        assert!(
            !matches!(
                event,
                RuntimeEvent::Agent(
                    AgentEvent::PlanModeChanged { .. } | AgentEvent::PlanPresented { .. }
                )
            ),
            "{event:?}"
        );
    }
    assert_eq!(answered, 2, "both plan tools answered");
}
