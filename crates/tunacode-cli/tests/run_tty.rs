//! End-to-end: `tunacode run` at a terminal (under tmux) asks for approval on the terminal; Ctrl+C at
//! that prompt exits with 130 at once (the session saved), an answer at the prompt is used, a
//! dangerous command is asked about once even with `--yes`, and a sub-agent's question names it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use tunacode_testkit::{FakeProvider, TestEnv, Tmux, Turn};

const WAIT: Duration = Duration::from_secs(20);

fn start_run(env: &TestEnv, fake: &FakeProvider, prompt: &str) -> Tmux {
    let args = format!(
        "run --model openai:test-model --base-url {} '{prompt}'",
        fake.base_url()
    );
    common::tmux_start(env, &args, 100, 30)
}

fn write_call() -> Turn {
    Turn::tool_calls(&[(
        "w1",
        "write_file",
        r#"{"file_path": "hello.txt", "content": "hi\n"}"#,
    )])
}

#[test]
fn ctrl_c_at_the_approval_prompt_exits_130_at_once() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![write_call(), Turn::text("never reached")]);
    let tmux = start_run(&env, &fake, "write hello");
    tmux.wait_for_text("Allow?", WAIT).unwrap();
    tmux.keys(&["C-c"]).unwrap();
    // "At once": well before the runtime's 10 s shutdown grace, and without pressing Enter.
    let code = tmux.wait_exit(Duration::from_secs(5)).unwrap();
    assert_eq!(code, 130, "{}", tmux.screen().unwrap());
    assert!(!env.workspace().join("hello.txt").exists());
    let session = env.only_session();
    let text = session["messages"].to_string();
    assert!(
        text.contains("write hello"),
        "the session was saved: {text}"
    );
    assert_eq!(fake.requests().len(), 1);
}

#[test]
fn an_answer_at_the_prompt_is_used() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![write_call(), Turn::text("Wrote it.")]);
    let tmux = start_run(&env, &fake, "write hello");
    // The diff is shown with the question.
    tmux.wait_for("the prompt with the diff", WAIT, |s| {
        s.contains("Allow?") && s.contains("+hi")
    })
    .unwrap();
    tmux.type_text("y").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    assert_eq!(
        tmux.wait_exit(WAIT).unwrap(),
        0,
        "{}",
        tmux.screen().unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("hello.txt")).unwrap(),
        "hi\n"
    );
}

#[test]
fn a_dangerous_command_asks_at_the_terminal_even_with_yes() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("rm", "bash", r#"{"command": "rm -rf ~"}"#)]),
        Turn::text("Left it alone."),
    ]);
    let args = format!(
        "run --yes --model openai:test-model --base-url {} 'clean my home'",
        fake.base_url()
    );
    let tmux = common::tmux_start(&env, &args, 100, 30);
    let screen = tmux
        .wait_for("the once-only question", WAIT, |s| {
            s.contains("Allow this once?")
        })
        .unwrap();
    assert!(screen.contains("home directory"), "{screen}");
    assert!(!screen.contains("[a]lways"), "{screen}");
    tmux.type_text("n").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    assert_eq!(
        tmux.wait_exit(WAIT).unwrap(),
        0,
        "{}",
        tmux.screen().unwrap()
    );
    let answer = fake.requests()[1].body.to_string();
    assert!(answer.contains("the user declined"), "{answer}");
}

#[test]
fn a_sub_agent_s_question_at_the_terminal_says_which_sub_agent_asks() {
    let env = TestEnv::new().unwrap();
    let task = serde_json::json!({"description": "make notes", "prompt": "tty-task: write notes", "subagent_type": "general"});
    let options = tunacode_testkit::FakeOptions {
        routes: vec![common::subagent_route(
            "tty-task",
            vec![write_call(), Turn::text("Wrote notes.")],
        )],
        ..tunacode_testkit::FakeOptions::default()
    };
    let fake = FakeProvider::start_with(
        std::sync::Arc::new(tunacode_testkit::OpenAiChat),
        vec![
            Turn::tool_calls(&[("t1", "task", &task.to_string())]),
            Turn::text("Done."),
        ],
        options,
    );
    let tmux = start_run(&env, &fake, "delegate");
    tmux.wait_for_text(
        "the sub-agent general: make notes: write_file wants to run",
        WAIT,
    )
    .unwrap();
    tmux.type_text("n").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    assert_eq!(
        tmux.wait_exit(WAIT).unwrap(),
        0,
        "{}",
        tmux.screen().unwrap()
    );
    assert!(!env.workspace().join("hello.txt").exists());
}
