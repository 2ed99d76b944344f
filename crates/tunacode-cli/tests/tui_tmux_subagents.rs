//! End-to-end under tmux: two sub-agents followed live in their `task` cells, counted on the status
//! line with their spend, and Esc stopping both (each cell says so, the count goes).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use serde_json::json;
use tunacode_testkit::{
    Ending, FakeOptions, FakeProvider, OpenAiChat, Reply, Route, ScriptedUsage, TestEnv, Turn,
};

const WAIT: Duration = Duration::from_secs(20);

/// A sub-agent's reply that writes `text`, reports its usage, then hangs.
fn stalling(text: &str) -> Turn {
    Turn::Reply(Reply {
        text: Some(text.into()),
        chunk_chars: 200,
        usage: Some(ScriptedUsage {
            prompt_tokens: 1000,
            completion_tokens: 100,
            cached_tokens: 0,
        }),
        ending: Ending::Stall { after_events: 3 },
        ..Reply::default()
    })
}

fn route(marker: &str, text: &str) -> Route {
    common::subagent_route(marker, vec![stalling(text)])
}

#[test]
fn two_sub_agents_are_followed_live_and_esc_stops_both() {
    let env = TestEnv::new().unwrap();
    let task = |d: &str, p: &str| {
        json!({"description": d, "prompt": p, "subagent_type": "explore"}).to_string()
    };
    let parent = vec![Turn::tool_calls(&[
        ("t1", "task", &task("map the parser", "north-task: map it")),
        ("t2", "task", &task("map the tests", "south-task: map them")),
    ])];
    let options = FakeOptions {
        routes: vec![
            route("north-task", "The parser lives in src/parse.rs."),
            route("south-task", "Tests live in tests/."),
        ],
        ..FakeOptions::default()
    };
    let fake = FakeProvider::start_with(std::sync::Arc::new(OpenAiChat), parent, options);
    common::write_local_config(&env, &fake, json!({}));
    let tmux = common::tmux_start(&env, "", 100, 30);
    tmux.wait_for_text("local:test-model", WAIT).unwrap();
    tmux.type_text("map the code").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    let live = tmux
        .wait_for("both sub-agents writing, counted", WAIT, |s| {
            s.contains("The parser lives in src/parse.rs.")
                && s.contains("Tests live in tests/.")
                && s.contains("⧉ 2 agents")
        })
        .unwrap();
    assert!(
        live.contains("task map the parser") && live.contains("task map the tests"),
        "{live}"
    );
    tmux.keys(&["Escape"]).unwrap();
    let stopped = tmux
        .wait_for("both stopped", WAIT, |s| {
            s.matches("ended: cancelled").count() == 2 && !s.contains("⧉")
        })
        .unwrap();
    assert!(stopped.contains("Interrupted"), "{stopped}");
}
