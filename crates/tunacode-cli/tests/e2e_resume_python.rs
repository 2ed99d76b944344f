//! End-to-end: sessions of the Python TunaCode resume with their memory. A real 0.2.3 session file in
//! its own place (`<sessions>/<project>_<id>.json`) is listed and resumed, and one in the seeds'
//! pydantic-era format is resumed; the first request carries their earlier messages, paired.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;

use common::*;
use tunacode_testkit::{FakeProvider, TestEnv, Turn};

fn fixture(path: &str) -> Vec<u8> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tunacode-store/tests/fixtures");
    std::fs::read(root.join(path)).unwrap()
}

#[test]
fn a_tunacode_0_2_session_is_listed_and_resumes_with_its_history() {
    let env = TestEnv::new().unwrap();
    let project = tunacode_store::project_id(&env.workspace());
    let sid = "7f93317b-a71c-493a-a2fa-512934c30d27";
    std::fs::create_dir_all(env.sessions_dir()).unwrap();
    let python = env.sessions_dir().join(format!("{project}_{sid}.json"));
    let bytes = fixture("tunacode-0.2/tool_call.json");
    std::fs::write(&python, &bytes).unwrap();

    let list = list_sessions(&env);
    assert_eq!(list[0]["session_id"], sid, "{list}");
    assert_eq!(list[0]["title"], "What does notes.txt say?");

    let fake = FakeProvider::start(vec![Turn::text("Yes, I remember.")]);
    let run = run(
        &env,
        &fake,
        &["--session", sid, "what did you read before?"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let body = &fake.requests()[0].body;
    assert_tool_pairing(body);
    let msgs = messages(body);
    let text = body.to_string();
    assert!(text.contains("What does notes.txt say?"), "{text}");
    assert!(
        text.contains("hello from notes"),
        "the tool result is sent: {text}"
    );
    assert!(
        msgs.iter()
            .any(|m| m["role"] == "tool" && m["tool_call_id"] == "call_1")
    );
    assert!(text.contains("what did you read before?"));
    // The Python file is never rewritten; the session continues in this version's folder.
    assert_eq!(std::fs::read(&python).unwrap(), bytes);
    assert!(
        env.sessions_dir()
            .join(&project)
            .join(format!("{sid}.json"))
            .exists()
    );
    let list = list_sessions(&env);
    assert_eq!(list.as_array().unwrap().len(), 1, "listed once: {list}");
}

#[test]
fn a_seed_format_session_resumes_with_its_history() {
    let env = TestEnv::new().unwrap();
    let project = tunacode_store::project_id(&env.workspace());
    let dir = env.sessions_dir().join(&project);
    std::fs::create_dir_all(&dir).unwrap();
    let sid = "5eed0000-1111-4222-8333-944455556666";
    std::fs::write(
        dir.join(format!("{sid}.json")),
        fixture("seed-format/session.json"),
    )
    .unwrap();
    let fake = FakeProvider::start(vec![Turn::text("Still two files.")]);
    let run = run(&env, &fake, &["--session", sid, "how many files again?"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let body = &fake.requests()[0].body;
    assert_tool_pairing(body);
    let text = body.to_string();
    assert!(
        text.contains("list the files in src") && text.contains("lib.rs\\nmain.rs"),
        "{text}"
    );
    assert!(
        !text.contains("an old-style message"),
        "legacy dicts are kept, never sent"
    );
    assert_eq!(
        text.matches("You are TunaCode.").count(),
        0,
        "stored system prompts are stripped"
    );
}
