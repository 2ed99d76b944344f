//! End-to-end: writer sub-agents in git worktrees of their own. Two writers edit the same file at
//! once and only the diff the user approves lands; a sub-agent cannot reach past its type (an
//! `explore` command that writes) or its worktree (the parent's file by its absolute path, a link
//! planted to it).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::json;
use tunacode_testkit::{FakeOptions, FakeProvider, Gather, OpenAiChat, Route, TestEnv, Turn};

/// A test home whose workspace is a git repository with one commit of `file` holding `text`.
fn committed(file: &str, text: &str) -> (TestEnv, std::path::PathBuf) {
    let env = TestEnv::new().unwrap();
    let ws = env.workspace().to_path_buf();
    std::fs::write(ws.join(file), text).unwrap();
    git(&ws, &["init", "-q"]);
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-qm", "start"]);
    (env, ws)
}

fn writer(id: &str, marker: &str, (target, replacement): (&str, &str)) -> (String, Route) {
    let args = json!({"description": marker, "prompt": format!("{marker}: edit shared.txt"), "subagent_type": "general"});
    let edit = json!({"file_path": "shared.txt", "target": target, "replacement": replacement});
    let route = subagent_route(
        marker,
        vec![
            Turn::tool_calls(&[(&format!("{id}-w"), "update_file", &edit.to_string())]),
            Turn::text(&format!("{marker} edited shared.txt.")),
        ],
    );
    (args.to_string(), route)
}

#[test]
fn two_writers_edit_the_same_file_in_their_worktrees_and_only_the_approved_diff_lands() {
    let (env, ws) = committed("shared.txt", "line1\nline2\nline3\n");
    let (one, route_one) = writer("t1", "writer-one", ("line1", "ONE"));
    let (two, route_two) = writer("t2", "writer-two", ("line3", "TWO"));
    let parent = vec![
        Turn::tool_calls(&[("t1", "task", &one), ("t2", "task", &two)]),
        Turn::text("Both writers reported."),
    ];
    let options = FakeOptions {
        routes: vec![route_one, route_two],
        gather: Some(Gather {
            marker: SUBAGENT.into(),
            count: 2,
        }),
        ..FakeOptions::default()
    };
    let fake = FakeProvider::start_with(std::sync::Arc::new(OpenAiChat), parent, options);
    let (mut child, mut out) = spawn_stream(&env, &fake, "openai:test-model", &[]);
    let mut stdin = child.stdin.take().unwrap();
    send_line(
        &mut stdin,
        json!({"type": "user_message", "text": "edit in parallel"}),
    );
    // Each writer's own edit (in its worktree), then each writer's diff for the workspace.
    let mut offered = Vec::new();
    for _ in 0..4 {
        let ask = next_of(&mut out, "approval_requested");
        let from = ask["subagent"]["parent_tool_call_id"]
            .as_str()
            .unwrap()
            .to_string();
        let decision = match ask["tool_name"].as_str().unwrap() {
            "update_file" => "allow",
            "apply_patch" => {
                offered.push((from.clone(), ask["preview"].as_str().unwrap().to_string()));
                if from == "t1" { "allow" } else { "deny" }
            }
            other => panic!("unexpected question about {other}: {ask}"),
        };
        send_line(
            &mut stdin,
            json!({"type": "approval", "request_id": ask["request_id"], "decision": decision}),
        );
    }
    let result = next_of(&mut out, "result");
    drop(stdin);
    let run = finish(child, Some(out));
    assert_eq!(
        result["status"], "answered",
        "{}\n{}",
        run.stdout, run.stderr
    );
    assert!(fake.gathered(), "both writers ran at once");
    offered.sort();
    assert_eq!(offered.len(), 2);
    assert!(offered[0].1.contains("-line1\n+ONE"), "{}", offered[0].1);
    assert!(offered[1].1.contains("-line3\n+TWO"), "{}", offered[1].1);
    // Exactly the first change, nothing of the second.
    assert_eq!(
        std::fs::read_to_string(ws.join("shared.txt")).unwrap(),
        "ONE\nline2\nline3\n"
    );
    let first = answer(&fake, "t1");
    assert!(
        first.contains("Its changes: applied to the workspace: shared.txt."),
        "{first}"
    );
    let second = answer(&fake, "t2");
    assert!(second.contains("Its changes: rejected"), "{second}");
    // No worktree is left behind.
    let listed = git(&ws, &["worktree", "list", "--porcelain"]);
    assert_eq!(listed.matches("worktree ").count(), 1, "{listed}");
}

#[test]
fn a_sub_agent_cannot_reach_past_its_type_or_its_worktree() {
    let (env, ws) = committed("keep.txt", "keep\n");
    let explore =
        json!({"description": "look", "prompt": "scout-task: look", "subagent_type": "explore"});
    let general =
        json!({"description": "edit", "prompt": "escape-task: edit", "subagent_type": "general"});
    let parent = vec![
        Turn::tool_calls(&[("t1", "task", &explore.to_string())]),
        Turn::tool_calls(&[("t2", "task", &general.to_string())]),
        Turn::text("Done."),
    ];
    // The explore agent tries a command that writes; the writer tries the parent's file by its
    // absolute path, then plants a link to it in its worktree.
    let outside = ws.join("keep.txt").display().to_string();
    let absolute = json!({"file_path": outside, "target": "keep", "replacement": "PWNED"});
    let link = json!({"command": format!("ln -s {outside} planted.txt")});
    let options = FakeOptions {
        routes: vec![
            subagent_route(
                "scout-task",
                vec![
                    Turn::tool_calls(&[("s1", "bash", r#"{"command": "rm -f keep.txt"}"#)]),
                    Turn::tool_calls(&[("s2", "bash", r#"{"command": "cat keep.txt"}"#)]),
                    Turn::text("Looked."),
                ],
            ),
            subagent_route(
                "escape-task",
                vec![
                    Turn::tool_calls(&[("e1", "update_file", &absolute.to_string())]),
                    Turn::tool_calls(&[("e2", "bash", &link.to_string())]),
                    Turn::text("Tried."),
                ],
            ),
        ],
        ..FakeOptions::default()
    };
    let fake = FakeProvider::start_with(std::sync::Arc::new(OpenAiChat), parent, options);
    let run = run(&env, &fake, &["--yes", "try everything"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        std::fs::read_to_string(ws.join("keep.txt")).unwrap(),
        "keep\n"
    );
    assert!(!ws.join("planted.txt").exists());
    let said = |id: &str| answer(&fake, id);
    assert!(
        said("s1").contains("read-only commands only"),
        "{}",
        said("s1")
    );
    assert!(
        said("s2").contains("keep"),
        "a read-only command runs: {}",
        said("s2")
    );
    assert!(said("e1").contains("outside"), "{}", said("e1"));
    let writer = said("t2");
    assert!(
        writer.contains("Never applied: planted.txt (not a regular file)"),
        "{writer}"
    );
}
