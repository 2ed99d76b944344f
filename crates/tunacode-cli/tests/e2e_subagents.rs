//! End-to-end: sub-agents. Three `explore` sub-agents started in one response run at the same time
//! (the fake holds their first requests until all three are in flight), each with its own history;
//! the parent gets three structured results, and the one whose provider fails midway still returns
//! what it found. Their sessions are saved as children of the parent's. A sub-agent that hits its
//! own cap stops with `budget` while the other goes on, and the parent's cap counts what both spent.
//! Two writers edit the same file in worktrees of their own and only the approved diff lands; an
//! interrupt stops every sub-agent and each keeps its session; a sub-agent cannot reach past its
//! type or its worktree; a defined type runs on its own model and a forking one starts from the
//! conversation.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{
    FakeOptions, FakeProvider, Gather, OpenAiChat, Reply, Route, ScriptedToolCall, ScriptedUsage,
    TestEnv, Turn,
};

/// Marks every sub-agent's request (its system prompt says it is one).
const SUBAGENT: &str = "You are a sub-agent";

fn task(id: &str, description: &str, prompt: &str) -> (String, String, String) {
    let args = json!({"description": description, "prompt": prompt, "subagent_type": "explore"});
    (id.into(), "task".into(), args.to_string())
}

fn calls(calls: &[(String, String, String)]) -> Turn {
    let refs: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    Turn::tool_calls(&refs)
}

fn route(marker: &str, turns: Vec<Turn>) -> Route {
    Route {
        markers: vec![SUBAGENT.into(), marker.into()],
        turns,
    }
}

fn read(id: &str, path: &str, text: Option<&str>) -> Turn {
    Turn::Reply(Reply {
        text: text.map(str::to_string),
        tool_calls: vec![ScriptedToolCall {
            id: id.into(),
            name: "read_file".into(),
            arguments: json!({"file_path": path}).to_string(),
        }],
        ..Reply::default()
    })
}

/// The tool result the parent's second request carries for call `id`.
fn result_of(body: &Value, id: &str) -> String {
    messages(body)
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .and_then(|m| m["content"].as_str())
        .unwrap_or_else(|| panic!("no result for {id}: {body}"))
        .to_string()
}

#[test]
fn three_explore_sub_agents_run_at_once_with_their_own_histories_and_a_failed_one_keeps_what_it_found()
 {
    let env = TestEnv::new().unwrap();
    for (name, text) in [
        ("a.txt", "alpha data"),
        ("b.txt", "beta data"),
        ("c.txt", "gamma data"),
    ] {
        std::fs::write(env.workspace().join(name), text).unwrap();
    }
    let parent = vec![
        calls(&[
            task("t1", "read a", "alpha-task: what is in a.txt?"),
            task("t2", "read b", "beta-task: what is in b.txt?"),
            task("t3", "read c", "gamma-task: what is in c.txt?"),
        ]),
        Turn::text("All three reported."),
    ];
    let options = FakeOptions {
        routes: vec![
            route(
                "alpha-task",
                vec![
                    read("a1", "a.txt", None),
                    Turn::text("a.txt holds alpha data."),
                ],
            ),
            route(
                "beta-task",
                vec![
                    read("b1", "b.txt", None),
                    Turn::text("b.txt holds beta data."),
                ],
            ),
            route(
                "gamma-task",
                vec![
                    read("g1", "c.txt", Some("So far: c.txt is the config.")),
                    Turn::http_error(
                        400,
                        &[],
                        r#"{"error": {"message": "bad request from gamma"}}"#,
                    ),
                ],
            ),
        ],
        gather: Some(Gather {
            marker: SUBAGENT.into(),
            count: 3,
        }),
        ..FakeOptions::default()
    };
    let fake = FakeProvider::start_with(std::sync::Arc::new(OpenAiChat), parent, options);
    let run = run(&env, &fake, &["investigate the three files"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        fake.gathered(),
        "the three sub-agents' first requests were in flight together"
    );

    let requests = fake.requests();
    let bodies: Vec<String> = requests.iter().map(|r| r.raw_body.clone()).collect();
    // Each sub-agent's history is its own: its task alone, never the parent's prompt or another's.
    for (mine, others) in [
        ("alpha-task", ["beta-task", "gamma-task"]),
        ("beta-task", ["alpha-task", "gamma-task"]),
        ("gamma-task", ["alpha-task", "beta-task"]),
    ] {
        let first = bodies
            .iter()
            .find(|b| b.contains(SUBAGENT) && b.contains(mine))
            .unwrap_or_else(|| panic!("no request of {mine}"));
        assert!(
            !first.contains("investigate the three files"),
            "{mine} saw the parent's prompt"
        );
        for other in others {
            assert!(!first.contains(other), "{mine} saw {other}");
        }
        assert!(
            !first.contains("\"name\":\"task\""),
            "a sub-agent is not offered `task`"
        );
    }
    // The parent got three structured results, in its one next request.
    let last = &requests.last().unwrap().body;
    let alpha = result_of(last, "t1");
    assert!(
        alpha.starts_with("Sub-agent `explore` (read a) ended: done."),
        "{alpha}"
    );
    assert!(
        alpha.contains("Files read: a.txt") && alpha.contains("a.txt holds alpha data."),
        "{alpha}"
    );
    let beta = result_of(last, "t2");
    assert!(
        beta.contains("ended: done") && beta.contains("b.txt holds beta data."),
        "{beta}"
    );
    let gamma = result_of(last, "t3");
    assert!(gamma.contains("ended: error"), "{gamma}");
    assert!(gamma.contains("bad request from gamma"), "{gamma}");
    assert!(gamma.contains("Files read: c.txt"), "{gamma}");
    assert!(
        gamma.contains("What it wrote before it stopped:\nSo far: c.txt is the config."),
        "{gamma}"
    );

    // stream-json: started and finished lines, and the sub-agents' own lines under their call.
    let started = run.of_type("subagent_started");
    assert_eq!(started.len(), 3, "{}", run.stdout);
    let finished = run.of_type("subagent_finished");
    let mut statuses: Vec<(&str, &str)> = finished
        .iter()
        .map(|l| {
            (
                l["tool_call_id"].as_str().unwrap(),
                l["status"].as_str().unwrap(),
            )
        })
        .collect();
    statuses.sort();
    assert_eq!(statuses, [("t1", "done"), ("t2", "done"), ("t3", "error")]);
    let nested: Vec<&Value> = run
        .events
        .iter()
        .filter(|l| l["type"] == "tool_call_started" && l["parent_tool_call_id"] == "t3")
        .collect();
    assert_eq!(nested.len(), 1, "{}", run.stdout);
    assert_eq!(nested[0]["tool_name"], "read_file");
    assert!(
        run.events
            .iter()
            .filter(|l| l["type"] == "tool_call_started" && l["tool_name"] == "task")
            .all(|l| l.get("parent_tool_call_id").is_none()),
        "the parent's own lines carry no parent call"
    );

    // Saved as child sessions of the parent's.
    let parent_id = run.result()["session_id"].as_str().unwrap().to_string();
    let listed = list_sessions(&env);
    let children: Vec<&Value> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["parent"]["session_id"] == parent_id.as_str())
        .collect();
    assert_eq!(children.len(), 3, "{listed:#}");
    assert!(
        children
            .iter()
            .all(|c| c["parent"]["subagent"] == "explore")
    );
}

/// `$100`/M input, `$1,000`/M output, 4,000 output tokens at most: a call's worst case is about $4.
fn priced(env: &TestEnv) {
    let config = json!({
        "models": {"openai:test-model": {"input": 100.0, "output": 1000.0, "max_output": 4000}},
    });
    std::fs::write(env.config_file(), config.to_string()).unwrap();
    let agents = env.config_file().parent().unwrap().join("tunacode/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("cheap.md"),
        "---\ndescription: A cheap helper\nbudget: 0.5\n---\nBe brief.\n",
    )
    .unwrap();
}

fn usage(prompt: u64, completion: u64, turn: Turn) -> Turn {
    let Turn::Reply(reply) = turn else { panic!() };
    Turn::Reply(Reply {
        usage: Some(ScriptedUsage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            cached_tokens: 0,
        }),
        ..reply
    })
}

#[test]
fn a_sub_agent_stops_at_its_own_cap_while_another_goes_on_and_the_parent_s_cap_counts_both() {
    let env = TestEnv::new().unwrap();
    priced(&env);
    std::fs::write(env.workspace().join("a.txt"), "alpha").unwrap();
    let cheap = json!({"description": "cheap look", "prompt": "cheap-task: look", "subagent_type": "cheap"});
    let explore = json!({"description": "explore", "prompt": "explore-task: read a.txt", "subagent_type": "explore"});
    // Parent: $0.10 in + $0.20 out. The explore sub-agent: $0.20 + $2.00.
    let parent = vec![
        usage(
            1000,
            200,
            Turn::tool_calls(&[
                ("t1", "task", &cheap.to_string()),
                ("t2", "task", &explore.to_string()),
            ]),
        ),
        Turn::text("Done."),
    ];
    let options = FakeOptions {
        routes: vec![
            route("cheap-task", vec![Turn::text("never sent")]),
            route(
                "explore-task",
                vec![usage(2000, 2000, Turn::text("a.txt says alpha."))],
            ),
        ],
        ..FakeOptions::default()
    };
    let fake = FakeProvider::start_with(std::sync::Arc::new(OpenAiChat), parent, options);
    let run = run(&env, &fake, &["--max-cost", "5", "look"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let requests = fake.requests();
    assert!(
        requests
            .iter()
            .all(|r| !r.raw_body.contains("cheap-task: look") || !r.raw_body.contains(SUBAGENT)),
        "the capped sub-agent never called its model"
    );
    let last = &requests.last().unwrap().body;
    let cheap_result = result_of(last, "t1");
    assert!(cheap_result.contains("ended: budget"), "{cheap_result}");
    assert!(
        cheap_result.contains("sub-agent's budget is exhausted"),
        "{cheap_result}"
    );
    assert!(result_of(last, "t2").contains("ended: done"));
    // $5 - $0.30 - $2.20 leaves about $2.50 for the parent's last call: its answer is clamped
    // below the 4,000 tokens it could write if the sub-agent's spend were not counted.
    let max_tokens = last["max_tokens"].as_u64().expect("clamped");
    assert!((1_024..2_600).contains(&max_tokens), "{max_tokens}");
    let cost = run.result()["usage"]["cost"].as_f64().unwrap();
    assert!(
        (2.5..=5.0).contains(&cost),
        "parent and sub-agent together: {cost}"
    );
}

fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

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
    let route = route(
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
    let requests = fake.requests();
    let last = &requests.last().unwrap().body;
    let first = result_of(last, "t1");
    assert!(
        first.contains("Its changes: applied to the workspace: shared.txt."),
        "{first}"
    );
    let second = result_of(last, "t2");
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
            route(
                "scout-task",
                vec![
                    Turn::tool_calls(&[("s1", "bash", r#"{"command": "rm -f keep.txt"}"#)]),
                    Turn::tool_calls(&[("s2", "bash", r#"{"command": "cat keep.txt"}"#)]),
                    Turn::text("Looked."),
                ],
            ),
            route(
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

fn stalling(text: &str) -> Turn {
    Turn::Reply(Reply {
        text: Some(text.into()),
        chunk_chars: 200,
        ending: tunacode_testkit::Ending::Stall { after_events: 2 },
        ..Reply::default()
    })
}

#[test]
fn an_interrupt_stops_every_sub_agent_and_each_keeps_its_session_and_what_it_wrote() {
    let env = TestEnv::new().unwrap();
    let one = json!({"description": "one", "prompt": "stall-one: dig", "subagent_type": "explore"});
    let two = json!({"description": "two", "prompt": "stall-two: dig", "subagent_type": "explore"});
    let parent = vec![Turn::tool_calls(&[
        ("t1", "task", &one.to_string()),
        ("t2", "task", &two.to_string()),
    ])];
    let options = FakeOptions {
        routes: vec![
            route("stall-one", vec![stalling("Found the first half.")]),
            route("stall-two", vec![stalling("Found the other half.")]),
        ],
        ..FakeOptions::default()
    };
    let fake = FakeProvider::start_with(std::sync::Arc::new(OpenAiChat), parent, options);
    let (mut child, mut out) = spawn_stream(&env, &fake, "openai:test-model", &[]);
    let mut stdin = child.stdin.take().unwrap();
    send_line(
        &mut stdin,
        json!({"type": "user_message", "text": "dig in parallel"}),
    );
    // Both have written before the interrupt (the reader keeps every line it went past).
    let wrote = |id: &str| format!("\"parent_tool_call_id\":\"{id}\",\"type\":\"text_delta\"");
    for id in ["t1", "t2"] {
        let mine = wrote(id);
        if !out.seen.iter().any(|l| l.contains(&mine)) {
            out.wait_for(std::time::Duration::from_secs(30), |l| l.contains(&mine))
                .unwrap_or_else(|| panic!("{id} never wrote; seen: {:#?}", out.seen));
        }
    }
    send_line(&mut stdin, json!({"type": "interrupt"}));
    let result = next_of(&mut out, "result");
    drop(stdin);
    let run = finish(child, Some(out));
    assert_eq!(result["status"], "aborted", "{}", run.stdout);
    let finished = run.of_type("subagent_finished");
    assert_eq!(finished.len(), 2, "{}", run.stdout);
    for line in &finished {
        assert_eq!(line["status"], "cancelled", "{line}");
    }
    // Each sub-agent's session is saved with what it had written, as a child of the parent's.
    let listed = list_sessions(&env);
    let children: Vec<&Value> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["parent"]["subagent"] == "explore")
        .collect();
    assert_eq!(children.len(), 2, "{listed:#}");
    let saved: String = children
        .iter()
        .map(|c| std::fs::read_to_string(c["path"].as_str().unwrap()).unwrap())
        .collect();
    assert!(saved.contains("Found the first half.") && saved.contains("Found the other half."));
}

#[test]
fn a_defined_type_runs_on_its_own_model_and_a_forking_one_starts_from_the_conversation() {
    let env = TestEnv::new().unwrap();
    let agents = env.config_file().parent().unwrap().join("tunacode/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("recall.md"),
        "---\ndescription: Remembers the talk\nmodel: local:other-model\nfork: true\nmaxTurns: 3\n---\nRecall.\n",
    )
    .unwrap();
    let task = json!({"description": "recall", "prompt": "recall-task: which bird?", "subagent_type": "recall"});
    let parent = vec![
        Turn::text("Noted: the bird is a pelican."),
        Turn::tool_calls(&[("t1", "task", &task.to_string())]),
        Turn::text("It remembered."),
    ];
    let options = FakeOptions {
        routes: vec![route("recall-task", vec![Turn::text("A pelican.")])],
        ..FakeOptions::default()
    };
    let fake = FakeProvider::start_with(std::sync::Arc::new(OpenAiChat), parent, options);
    write_local_config(&env, &fake, json!({}));
    let mut child = env
        .command(&bin())
        .args([
            "run",
            "--input-format",
            "stream-json",
            "--output",
            "stream-json",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = tunacode_testkit::LineReader::new(child.stdout.take().unwrap());
    let mut stdin = child.stdin.take().unwrap();
    send_line(
        &mut stdin,
        json!({"type": "user_message", "text": "remember PELICAN-7"}),
    );
    next_of(&mut out, "result");
    send_line(
        &mut stdin,
        json!({"type": "user_message", "text": "ask a helper"}),
    );
    let result = next_of(&mut out, "result");
    drop(stdin);
    finish(child, Some(out));
    assert_eq!(result["status"], "answered", "{result}");
    let requests = fake.requests();
    let asked = requests
        .iter()
        .find(|r| r.raw_body.contains(SUBAGENT) && r.raw_body.contains("recall-task"))
        .expect("the sub-agent asked its model");
    assert_eq!(asked.body["model"], "other-model");
    assert!(
        asked.raw_body.contains("PELICAN-7"),
        "it starts from the conversation"
    );
    assert!(
        asked.raw_body.contains("Recall."),
        "it is told its type's part"
    );
    assert!(result_of(&requests.last().unwrap().body, "t1").contains("A pelican."));
}
