//! End-to-end: the real `tunacode` TUI under tmux against the fake provider — first-run setup with a
//! base URL and a key, a task with an approved write and its diff, Esc interrupting a second request,
//! quitting, and `/resume` in a new process; continuing past the iteration limit from its dialog; and
//! MCP servers in the status line, `/mcp`, and an MCP tool approved from its dialog; `/undo`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use serde_json::Value;
use tunacode_testkit::{Ending, FakeProvider, Reply, TestEnv, Tmux, Turn};

const WAIT: Duration = Duration::from_secs(20);

fn start(env: &TestEnv) -> Tmux {
    common::tmux_start(env, "", 100, 30)
}

#[test]
fn setup_task_approval_interrupt_quit_and_resume() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::text("pong"),
        Turn::Reply(Reply {
            text: Some("Creating it.".into()),
            tool_calls: Turn::tool_calls(&[(
                "c1",
                "write_file",
                r#"{"file_path": "hello.txt", "content": "hi there\n"}"#,
            )])
            .calls(),
            ..Reply::default()
        }),
        Turn::text("TUNACODE DONE: Created hello.txt."),
        Turn::Reply(Reply {
            text: Some("Working on the second thing".into()),
            ending: Ending::Stall { after_events: 4 },
            ..Reply::default()
        }),
        Turn::text("Resumed fine."),
    ]);
    let tmux = start(&env);

    // First run: no configuration, so the setup screen opens.
    tmux.wait_for_text("OpenAI-compatible server", WAIT)
        .unwrap();
    tmux.keys(&["5"]).unwrap(); // a digit picks and confirms
    tmux.wait_for_text("http://localhost:11434/v1", WAIT)
        .unwrap();
    tmux.keys(&["End", "C-u"]).unwrap();
    tmux.type_text(&fake.base_url()).unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("local", WAIT).unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.type_text("sk-test-secret-123").unwrap();
    let screen = tmux.screen().unwrap();
    assert!(
        !screen.contains("sk-test-secret-123"),
        "the key was echoed:\n{screen}"
    );
    tmux.keys(&["Enter"]).unwrap();
    tmux.type_text("test-model").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("OK: test-model answered", WAIT).unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("Ready: local:test-model", WAIT).unwrap();
    let config_path = env.config_file();
    let mode = std::fs::metadata(&config_path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(&config_path).unwrap()).unwrap();
    assert_eq!(config["default_model"], "local:test-model");
    assert_eq!(config["providers"]["local"]["base_url"], fake.base_url());
    assert_eq!(config["env"]["LOCAL_API_KEY"], "sk-test-secret-123");
    assert_eq!(
        fake.requests()[0].header("authorization"),
        Some("Bearer sk-test-secret-123")
    );

    // A task: the write asks for approval and shows the diff; approving writes the file.
    tmux.type_text("create hello.txt").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for("the approval with its diff", WAIT, |s| {
        s.contains("Allow write_file?") && s.contains("+++ b/hello.txt") && s.contains("+hi there")
    })
    .unwrap();
    tmux.keys(&["y"]).unwrap();
    let done = tmux
        .wait_for("the answer and the finished tool", WAIT, |s| {
            s.contains("Created hello.txt.") && s.contains("✓ write_file hello.txt")
        })
        .unwrap();
    assert!(!done.contains("TUNACODE DONE"), "{done}");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("hello.txt")).unwrap(),
        "hi there\n"
    );

    // A second request streams, then Esc interrupts it through the engine's abort path.
    tmux.type_text("now the second thing").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("Working on", WAIT).unwrap();
    tmux.keys(&["Escape"]).unwrap();
    tmux.wait_for_text("Interrupted", WAIT).unwrap();

    // Ctrl+C twice quits.
    tmux.keys(&["C-c"]).unwrap();
    tmux.wait_for_text("press Ctrl+C again to quit", WAIT)
        .unwrap();
    tmux.keys(&["C-c"]).unwrap();
    assert_eq!(tmux.wait_exit(WAIT).unwrap(), 0);
    let session = env.only_session();
    // On exit, how to come back (the short id works with --session).
    let short = session["session_id"].as_str().unwrap()[..8].to_string();
    tmux.wait_for_text(
        &format!(
            "Session {short} saved. Resume it with: tunacode --continue (or tunacode --session {short})"
        ),
        WAIT,
    )
    .unwrap();
    let text = serde_json::to_string(&session["messages"]).unwrap();
    assert!(
        text.contains("[INTERRUPTED]") && text.contains("create hello.txt"),
        "{text}"
    );
    drop(tmux);

    // A new process: /resume picks the session and shows its history.
    let tmux = start(&env);
    tmux.wait_for_text("local:test-model", WAIT).unwrap();
    tmux.type_text("/resume").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("Resume a session", WAIT).unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for("the resumed history", WAIT, |s| {
        s.contains("Resumed session")
            && s.contains("create hello.txt")
            && s.contains("Created hello.txt.")
    })
    .unwrap();
    tmux.type_text("and now?").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("Resumed fine.", WAIT).unwrap();
    let last = fake.requests().last().unwrap().body.clone();
    let history = serde_json::to_string(&last["messages"]).unwrap();
    assert!(
        history.contains("create hello.txt") && history.contains("[INTERRUPTED]"),
        "{history}"
    );
    tmux.keys(&["C-c", "C-c"]).unwrap();
    assert_eq!(tmux.wait_exit(WAIT).unwrap(), 0);
}

#[test]
fn continuing_past_the_iteration_limit_from_its_dialog() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("a", "list_dir", "{}")]),
        Turn::tool_calls(&[("b", "list_dir", "{}")]),
        Turn::text("Finished after continuing."),
    ]);
    common::write_local_config(
        &env,
        &fake,
        serde_json::json!({"settings": {"max_iterations": 2}}),
    );
    let tmux = start(&env);
    tmux.wait_for_text("local:test-model", WAIT).unwrap();
    tmux.type_text("look around").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    // A screen is captured whole only once every part of it has arrived: wait for all of it.
    tmux.wait_for("the limit dialog", WAIT, |s| {
        s.contains("Iteration limit reached")
            && s.contains("Original request: look around")
            && s.contains("list_dir: 2")
    })
    .unwrap();
    tmux.keys(&["1"]).unwrap();
    tmux.wait_for("the answer after continuing", WAIT, |s| {
        s.contains("Finished after continuing.") && s.contains("the iteration limit is now 7")
    })
    .unwrap();
    assert_eq!(fake.requests().len(), 3);
    tmux.keys(&["C-c", "C-c"]).unwrap();
    assert_eq!(tmux.wait_exit(WAIT).unwrap(), 0);
}

#[test]
fn mcp_servers_show_in_the_status_line_and_their_tools_ask_before_running() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("e", "mcp__fake__echo", r#"{"message": "from the TUI"}"#)]),
        Turn::text("Echoed."),
    ]);
    let mcp = tunacode_testkit::fake_mcp_binary();
    common::write_local_config(
        &env,
        &fake,
        serde_json::json!({"mcpServers": {"fake": {"command": mcp},
                                          "broken": {"command": mcp, "args": ["--crash"]}}}),
    );
    let tmux = start(&env);
    tmux.wait_for("the servers' states", WAIT, |s| {
        s.contains("MCP 1/2") && s.contains("MCP server `broken` is not available")
    })
    .unwrap();
    tmux.type_text("/mcp").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for("the /mcp list", WAIT, |s| {
        s.contains("fake  ready (2026-07-28, 6 tools)") && s.contains("mcp__fake__echo")
    })
    .unwrap();
    tmux.type_text("echo something").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for("the approval of the MCP tool", WAIT, |s| {
        s.contains("Allow mcp__fake__echo?")
            && s.contains("MCP server `fake`, tool `echo`")
            && s.contains("\"message\": \"from the TUI\"")
    })
    .unwrap();
    assert!(
        !tmux.screen().unwrap().contains("$ MCP server"),
        "not shown as a command line"
    );
    tmux.keys(&["y"]).unwrap();
    tmux.wait_for("the answer", WAIT, |s| s.contains("Echoed."))
        .unwrap();
    let second = &fake.requests()[1].body;
    assert!(
        second.to_string().contains("echo: from the TUI"),
        "{second}"
    );
    tmux.keys(&["C-c", "C-c"]).unwrap();
    assert_eq!(tmux.wait_exit(WAIT).unwrap(), 0);
}

#[test]
fn undo_in_the_ui_restores_a_write_an_update_and_a_sed() {
    let env = TestEnv::new().unwrap();
    let ws = env.workspace();
    std::fs::write(ws.join("a.txt"), "alpha\n").unwrap();
    std::fs::write(ws.join("b.txt"), "beta\n").unwrap();
    let fake = FakeProvider::start(common::edit_turns());
    common::write_local_config(&env, &fake, serde_json::json!({}));
    let tmux = start(&env);
    tmux.wait_for_text("local:test-model", WAIT).unwrap();
    tmux.type_text("/yolo").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("YOLO on", WAIT).unwrap();
    tmux.type_text("edit the files").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    // The request has ended (the status line says so) before an undo can run.
    tmux.wait_for("the request's end", WAIT, |s| {
        s.contains("Edited three files.") && s.trim_end().ends_with("ready")
    })
    .unwrap();
    assert_eq!(std::fs::read_to_string(ws.join("b.txt")).unwrap(), "BETA\n");
    tmux.type_text("/undo").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for("the undo report", WAIT, |s| {
        s.contains("Undo: files back to before prompt 1") && s.contains("removed new.txt")
    })
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).unwrap(),
        "alpha\n"
    );
    assert_eq!(std::fs::read_to_string(ws.join("b.txt")).unwrap(), "beta\n");
    assert!(!ws.join("new.txt").exists());
    tmux.keys(&["C-c", "C-c"]).unwrap();
    assert_eq!(tmux.wait_exit(WAIT).unwrap(), 0);
}

#[test]
fn a_custom_command_is_completed_listed_and_expanded_in_the_ui() {
    let env = TestEnv::new().unwrap();
    let ws = env.workspace();
    std::fs::create_dir_all(ws.join(".tunacode/commands")).unwrap();
    std::fs::write(
        ws.join(".tunacode/commands/explain.md"),
        "---\ndescription: Explain a topic simply\n---\nExplain $ARGUMENTS to a beginner.",
    )
    .unwrap();
    let fake = FakeProvider::start(vec![Turn::text("Explained.")]);
    common::write_local_config(&env, &fake, serde_json::json!({}));
    let tmux = start(&env);
    tmux.wait_for_text("local:test-model", WAIT).unwrap();
    tmux.type_text("/expl").unwrap();
    tmux.wait_for_text("Explain a topic simply", WAIT).unwrap();
    tmux.keys(&["Tab"]).unwrap();
    tmux.wait_for_text("/explain", WAIT).unwrap();
    tmux.type_text("borrow checking").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("Explained.", WAIT).unwrap();
    let sent = fake.requests()[0].body.to_string();
    assert!(
        sent.contains("Explain borrow checking to a beginner."),
        "{sent}"
    );
    tmux.keys(&["C-c", "C-c"]).unwrap();
    assert_eq!(tmux.wait_exit(WAIT).unwrap(), 0);
}

#[test]
fn esc_esc_opens_the_rewind_picker_and_a_rewind_puts_the_prompt_back_in_the_input() {
    let env = TestEnv::new().unwrap();
    let ws = env.workspace();
    std::fs::write(ws.join("a.txt"), "alpha\n").unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[(
            "u",
            "update_file",
            r#"{"file_path": "a.txt", "target": "alpha", "replacement": "ALPHA"}"#,
        )]),
        Turn::text("Did one."),
        Turn::tool_calls(&[(
            "w",
            "write_file",
            r#"{"file_path": "new.txt", "content": "fresh\n"}"#,
        )]),
        Turn::text("Did two."),
    ]);
    common::write_local_config(&env, &fake, serde_json::json!({}));
    let tmux = start(&env);
    tmux.wait_for_text("local:test-model", WAIT).unwrap();
    tmux.type_text("/yolo").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("YOLO on", WAIT).unwrap();
    for (prompt, answer) in [
        ("change the first", "Did one."),
        ("add the second", "Did two."),
    ] {
        tmux.type_text(prompt).unwrap();
        tmux.keys(&["Enter"]).unwrap();
        tmux.wait_for("the request's end", WAIT, |s| {
            s.contains(answer) && s.trim_end().ends_with("ready")
        })
        .unwrap();
    }
    // The second Esc goes once the first one shows its hint, as a user's second press follows the
    // first: two Esc bytes read in one go are a single Esc to the terminal's parser (crossterm), so
    // two back-to-back send-keys could be one press on a loaded machine.
    tmux.keys(&["Escape"]).unwrap();
    tmux.wait_for_text("Esc again: rewind", WAIT).unwrap();
    tmux.keys(&["Escape"]).unwrap();
    let picker = tmux
        .wait_for("the rewind picker", WAIT, |s| {
            s.contains("Rewind to before a prompt") && s.contains("1. change the first")
        })
        .unwrap();
    assert!(picker.contains("2. add the second"), "{picker}");
    assert!(
        picker.contains("Changed 1 file(s):") && picker.contains("new.txt"),
        "{picker}"
    );
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("Files only", WAIT).unwrap();
    tmux.keys(&["Enter"]).unwrap();
    let screen = tmux
        .wait_for("the rewind report", WAIT, |s| {
            s.contains("Rewind: conversation and files back to before prompt 2")
        })
        .unwrap();
    assert!(screen.contains("removed new.txt"), "{screen}");
    assert!(!ws.join("new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).unwrap(),
        "ALPHA\n"
    );
    let input_line = screen
        .lines()
        .find(|l| l.starts_with("›") && l.contains("add the second"));
    assert!(
        input_line.is_some(),
        "the prompt is back in the input: {screen}"
    );
    assert!(
        !screen.contains("Did two."),
        "the later conversation is gone: {screen}"
    );
    tmux.keys(&["C-c", "C-c", "C-c"]).unwrap();
    assert_eq!(tmux.wait_exit(WAIT).unwrap(), 0);
}
