//! What the runtime keeps between requests: a session setting changed while idle is saved at once
//! (a resumed session comes back with it), and the short id the front ends show opens a session.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use tunacode_core::{Op, RuntimeEvent, SessionChoice};
use tunacode_testkit::{FakeProvider, Turn};

use common::runtime_kit::{ended, next, opened, settings, start};

async fn stop(
    rt: &tunacode_core::RuntimeHandle,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<RuntimeEvent>,
) {
    rt.submit(Op::Shutdown);
    next(rx, |e| matches!(e, RuntimeEvent::Stopped).then_some(())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_mode_turned_off_between_requests_is_saved_without_another_request() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("planned")]);
    let s = settings(dir.path(), &fake.base_url());
    let (rt, mut rx) = start(s.clone(), SessionChoice::New, false).await;
    let first = next(&mut rx, opened).await;
    rt.submit(Op::SetPlanMode { active: true });
    rt.submit(Op::user_message("plan the fix"));
    next(&mut rx, ended).await;
    rt.submit(Op::SetPlanMode { active: false });
    next(&mut rx, |e| match e {
        RuntimeEvent::Agent(tunacode_protocol::AgentEvent::PlanModeChanged { active: false }) => {
            Some(())
        }
        _ => None,
    })
    .await;
    stop(&rt, &mut rx).await;

    // Resumed by the 8-character id the status line shows.
    let short = first.session_id[..8].to_string();
    let (rt, mut rx) = start(s, SessionChoice::Resume(short), false).await;
    let resumed = next(&mut rx, opened).await;
    assert_eq!(resumed.session_id, first.session_id);
    assert!(!resumed.plan_mode, "the session came back in plan mode");
    stop(&rt, &mut rx).await;
}
