//! End-to-end: sub-agents. Three `explore` sub-agents started in one response run at the same time
//! (the fake holds their first requests until all three are in flight), each with its own history;
//! the parent gets three structured results, and the one whose provider fails midway still returns
//! what it found. Their sessions are saved as children of the parent's. A sub-agent that hits its
//! own cap stops with `budget` while the other goes on, and the parent's cap counts what both spent.
//! An interrupt stops every sub-agent and each keeps its session; a defined type runs on its own
//! model and a forking one starts from the conversation. (Writers in worktrees:
//! `e2e_subagent_worktrees.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{
    FakeOptions, FakeProvider, Gather, OpenAiChat, Reply, ScriptedToolCall, ScriptedUsage, TestEnv,
    Turn,
};

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
            subagent_route(
                "alpha-task",
                vec![
                    read("a1", "a.txt", None),
                    Turn::text("a.txt holds alpha data."),
                ],
            ),
            subagent_route(
                "beta-task",
                vec![
                    read("b1", "b.txt", None),
                    Turn::text("b.txt holds beta data."),
                ],
            ),
            subagent_route(
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
            subagent_route("cheap-task", vec![Turn::text("never sent")]),
            subagent_route(
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
            subagent_route("stall-one", vec![stalling("Found the first half.")]),
            subagent_route("stall-two", vec![stalling("Found the other half.")]),
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
        routes: vec![subagent_route(
            "recall-task",
            vec![Turn::text("A pelican.")],
        )],
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
