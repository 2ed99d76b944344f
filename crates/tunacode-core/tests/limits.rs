//! The user's choices at the iteration limit, through the engine against the fake provider.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;
use tunacode_core::{
    ApprovalDecision, ApprovalRequest, Approver, EventSink, LimitDecision, ProgressReport,
    RuntimeEvent,
};
use tunacode_protocol::{AgentEvent, FinishReason};
use tunacode_testkit::{FakeProvider, Turn};

use common::{agent_with, new_session, options};

/// Answers the limit with the given decisions in turn (then stops), recording the reports.
struct Decides {
    decisions: Mutex<Vec<LimitDecision>>,
    reports: Mutex<Vec<ProgressReport>>,
}

#[async_trait]
impl Approver for Decides {
    async fn approve(&self, _request: &ApprovalRequest) -> ApprovalDecision {
        ApprovalDecision::Approve
    }

    async fn on_iteration_limit(&self, report: &ProgressReport) -> LimitDecision {
        self.reports.lock().unwrap().push(report.clone());
        let mut d = self.decisions.lock().unwrap();
        if d.is_empty() {
            LimitDecision::Stop
        } else {
            d.remove(0)
        }
    }
}

fn decides(decisions: Vec<LimitDecision>) -> Arc<Decides> {
    Arc::new(Decides {
        decisions: Mutex::new(decisions),
        reports: Mutex::new(vec![]),
    })
}

fn calls(n: usize) -> Vec<Turn> {
    (0..n)
        .map(|i| {
            // Each call its own pattern: the same call again and again would be a loop.
            let args = format!(r#"{{"pattern": "*.{i}"}}"#);
            Turn::tool_calls(&[(&format!("c{i}"), "glob", &args)])
        })
        .collect()
}

#[tokio::test]
async fn continue_grows_the_limit_by_five() {
    let dir = tempfile::tempdir().unwrap();
    let mut script = calls(4);
    script.push(Turn::text("Finished after all."));
    let fake = FakeProvider::start(script);
    let approver = decides(vec![LimitDecision::Continue]);
    let mut opts = options();
    opts.max_iterations = 2;
    let (events, mut rx) = EventSink::channel();
    let agent = agent_with(
        &fake,
        dir.path(),
        approver.clone(),
        new_session(dir.path()),
        opts,
        events,
    );
    let outcome = agent
        .process_request("keep going", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        (outcome.reason, outcome.iterations),
        (FinishReason::Answered, 5)
    );
    let reports = approver.reports.lock().unwrap().clone();
    assert_eq!(reports.len(), 1);
    assert_eq!((reports[0].iterations, reports[0].max_iterations), (2, 2));
    assert_eq!(reports[0].original_query, "keep going");
    let mut limits = Vec::new();
    while let Ok(e) = rx.try_recv() {
        if let RuntimeEvent::Agent(AgentEvent::IterationStarted { max_iterations, .. }) = e {
            limits.push(max_iterations);
        }
    }
    assert_eq!(limits, [2, 2, 7, 7, 7]);
}

#[tokio::test]
async fn summarize_asks_for_a_summary_without_tools_and_stops() {
    let dir = tempfile::tempdir().unwrap();
    let mut script = calls(2);
    script.push(Turn::text(
        "I listed the directory twice; nothing else is left.",
    ));
    let fake = FakeProvider::start(script);
    let mut opts = options();
    opts.max_iterations = 2;
    let agent = agent_with(
        &fake,
        dir.path(),
        decides(vec![LimitDecision::Summarize]),
        new_session(dir.path()),
        opts,
        EventSink::none(),
    );
    let outcome = agent
        .process_request("look", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.reason, FinishReason::IterationLimit);
    assert_eq!(
        outcome.response,
        "I listed the directory twice; nothing else is left."
    );
    let last = &fake.requests()[2].body;
    assert!(
        last.get("tools").is_none(),
        "the summary call offers no tools"
    );
    let msgs = last["messages"].as_array().unwrap();
    let asked = msgs.iter().any(|m| {
        m["role"] == "user"
            && m["content"]
                .as_str()
                .unwrap()
                .starts_with("The iteration limit was reached")
    });
    assert!(asked, "{last}");
}

#[tokio::test]
async fn another_approach_tells_the_model_and_grows_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut script = calls(2);
    script.push(Turn::text("TUNACODE DONE: different route worked"));
    let fake = FakeProvider::start(script);
    let mut opts = options();
    opts.max_iterations = 2;
    let agent = agent_with(
        &fake,
        dir.path(),
        decides(vec![LimitDecision::TryAnotherApproach]),
        new_session(dir.path()),
        opts,
        EventSink::none(),
    );
    let outcome = agent
        .process_request("look", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.reason, FinishReason::Completed);
    let msgs = fake.requests()[2].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    assert!(msgs.iter().any(|m| {
        m["content"]
            .as_str()
            .unwrap_or("")
            .contains("try a different approach")
    }));
}
