//! Dispatch with a tool that fails for a passing reason: retried with backoff, then recorded as failed.

use std::sync::atomic::{AtomicU32, Ordering};

use async_trait::async_trait;
use serde_json::json;
use tunacode_tools::Workspace;

use super::*;
use crate::approval::AutoApprove;
use crate::registry::ToolCallStatus;
use crate::session::Session;

/// Fails with `Transient` the first `failures` times, then succeeds.
struct Flaky {
    failures: u32,
    calls: AtomicU32,
}

#[async_trait]
impl Tool for Flaky {
    fn name(&self) -> &str {
        "flaky"
    }
    fn description(&self) -> &str {
        "fails, then works"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn kind(&self) -> ToolKind {
        ToolKind::ReadOnly
    }
    async fn call(
        &self,
        _args: Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        if n <= self.failures {
            Err(ToolError::Transient(format!("resource busy (attempt {n})")))
        } else {
            Ok(ToolOutput::text(format!("worked on attempt {n}")))
        }
    }
}

fn dispatcher(tool: Arc<Flaky>, retries: u32) -> ToolDispatcher {
    let mut tools = ToolSet::new();
    tools.add(tool);
    let dir = std::env::temp_dir();
    ToolDispatcher {
        tools,
        ctx: ToolContext {
            workspace: Workspace::new(&dir),
            cancel: CancellationToken::new(),
            exec: Default::default(),
            output: None,
            call_id: String::new(),
        },
        approver: Arc::new(AutoApprove),
        events: EventSink::none(),
        session: SessionHandle::new(Session::new(&dir, "openai:m")),
        max_parallel: 2,
        tool_max_retries: retries,
        read_only_reason: None,
        results: None,
        hooks: None,
    }
}

fn call() -> Vec<ToolCallPart> {
    match Part::tool_call("f1", "flaky", json!({})) {
        Part::ToolCall(c) => vec![c],
        _ => unreachable!(),
    }
}

#[tokio::test]
async fn passing_failures_are_retried_until_the_tool_works() {
    let tool = Arc::new(Flaky {
        failures: 2,
        calls: AtomicU32::new(0),
    });
    let d = dispatcher(tool.clone(), 3);
    let answers = d.dispatch(&call()).await;
    assert_eq!(
        answers,
        vec![Part::tool_return("f1", "flaky", "worked on attempt 3")]
    );
    assert_eq!(tool.calls.load(Ordering::SeqCst), 3);
    let session = d.session.snapshot();
    assert_eq!(
        session.runtime.tool_registry.get("f1").unwrap().status,
        ToolCallStatus::Completed
    );
}

#[tokio::test]
async fn after_the_retry_limit_the_call_is_recorded_as_failed() {
    let tool = Arc::new(Flaky {
        failures: 10,
        calls: AtomicU32::new(0),
    });
    let d = dispatcher(tool.clone(), 1);
    let answers = d.dispatch(&call()).await;
    assert_eq!(
        answers,
        vec![Part::tool_return(
            "f1",
            "flaky",
            "Error: resource busy (attempt 2)"
        )]
    );
    assert_eq!(tool.calls.load(Ordering::SeqCst), 2);
    let record = d
        .session
        .snapshot()
        .runtime
        .tool_registry
        .get("f1")
        .cloned()
        .unwrap();
    assert_eq!(record.status, ToolCallStatus::Failed);
    assert_eq!(
        record.error.as_deref(),
        Some("Error: resource busy (attempt 2)")
    );
}

#[tokio::test]
async fn a_cancelled_request_runs_no_call() {
    let tool = Arc::new(Flaky {
        failures: 0,
        calls: AtomicU32::new(0),
    });
    let d = dispatcher(tool.clone(), 1);
    d.ctx.cancel.cancel();
    let answers = d.dispatch(&call()).await;
    assert_eq!(
        answers,
        vec![Part::tool_return("f1", "flaky", CANCELLED_ANSWER)]
    );
    assert_eq!(tool.calls.load(Ordering::SeqCst), 0);
    let status = d
        .session
        .snapshot()
        .runtime
        .tool_registry
        .get("f1")
        .unwrap()
        .status;
    assert_eq!(status, ToolCallStatus::Cancelled);
}
