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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn project_files_added_after_start_reach_the_next_request() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("one"), Turn::text("two")]);
    let s = settings(dir.path(), &fake.base_url());
    let ws = s.cwd.clone();
    let (rt, mut rx) = start(s, SessionChoice::New, false).await;
    next(&mut rx, opened).await;
    rt.submit(Op::user_message("first"));
    next(&mut rx, ended).await;
    assert!(!fake.requests()[0].raw_body.contains("Indent with tabs"));

    std::fs::write(ws.join("AGENTS.md"), "Indent with tabs.\n").unwrap();
    let skill = ws.join(".tunacode/skills/release");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: release\ndescription: Cut a release of this project\n---\nSteps.\n",
    )
    .unwrap();
    let commands = ws.join(".tunacode/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(commands.join("review.md"), "Review the diff.\n").unwrap();

    rt.submit(Op::user_message("second"));
    let listed = next(&mut rx, |e| match e {
        RuntimeEvent::CustomCommands(commands) => Some(commands),
        _ => None,
    })
    .await;
    assert!(listed.iter().any(|c| c.name == "review"), "{listed:?}");
    next(&mut rx, ended).await;
    let second = &fake.requests()[1];
    assert!(
        second.raw_body.contains("Indent with tabs"),
        "the new AGENTS.md"
    );
    assert!(
        second.raw_body.contains("Cut a release of this project"),
        "the new skill"
    );
    assert!(
        second.body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["function"]["name"] == "skill"),
        "the skill tool is offered once there are skills"
    );
    // `/context` reads them as they are now too.
    rt.submit(Op::DescribeContext);
    let described = next(&mut rx, |e| match e {
        RuntimeEvent::Context(breakdown) => Some(breakdown.render()),
        _ => None,
    })
    .await;
    assert!(
        described.contains("AGENTS.md") && described.contains("release"),
        "{described}"
    );
    stop(&rt, &mut rx).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_with_no_known_window_says_so_and_the_window_set_is_saved_and_used() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(vec![]);
    let s = settings(dir.path(), &fake.base_url());
    let config_file = s.paths.config_file.clone();
    let (rt, mut rx) = start(s, SessionChoice::New, false).await;
    next(&mut rx, opened).await;
    let context = |e: RuntimeEvent| match e {
        RuntimeEvent::Context(b) => Some(b),
        _ => None,
    };
    rt.submit(Op::DescribeContext);
    let unknown = next(&mut rx, context).await;
    assert_eq!(unknown.window, None);
    assert!(
        unknown.render().contains("is unknown"),
        "{}",
        unknown.render()
    );
    assert_eq!(
        unknown.sections.iter().map(|s| s.tokens).sum::<u64>(),
        unknown.total
    );
    rt.submit(Op::SetContextWindow { tokens: 64_000 });
    let changed = next(&mut rx, |e| match e {
        RuntimeEvent::ModelChanged(model) => Some(model),
        _ => None,
    })
    .await;
    assert_eq!(changed.context_window, Some(64_000));
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&config_file).unwrap()).unwrap();
    assert_eq!(saved["models"][&unknown.model]["context_window"], 64_000);
    rt.submit(Op::DescribeContext);
    let known = next(&mut rx, context).await;
    assert_eq!(known.window, Some(64_000));
    assert!(known.render().contains("free"), "{}", known.render());
    stop(&rt, &mut rx).await;
}
