//! End-to-end: nothing in a session's journal is lost silently. A journal with a bad line in the
//! middle is resumed: the lines before it and the lines after it that do not need it reach the next
//! request, the bad line is kept in `<id>.jsonl.corrupt-<time>` (0600) beside the session, and the
//! stream-json output says so in a `journal_recovery` notice. A journal whose first line was edited is
//! kept aside whole, and said so too.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use common::*;
use serde_json::{Value, json};
use tunacode_protocol::{Message, Part};
use tunacode_store::{Journal, JournalBase, JournalEntry, JournalRecord, SessionStore};
use tunacode_testkit::{FakeProvider, TestEnv, Turn};

/// A first run's saved session: its file and the checkpoint a journal after it follows.
fn first_session(env: &TestEnv) -> (PathBuf, JournalBase) {
    let fake = FakeProvider::start(vec![Turn::text("first answer")]);
    let first = run(env, &fake, &["first prompt"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let id = first.result()["session_id"].as_str().unwrap().to_string();
    let file = env
        .session_files()
        .into_iter()
        .find(|p| p.file_stem().is_some_and(|s| s == id.as_str()))
        .expect("the session file");
    let bytes = std::fs::read(&file).unwrap();
    let saved = SessionStore::load_file(&file).unwrap();
    let base = JournalBase {
        bytes: bytes.len() as u64,
        messages: saved.messages.len(),
        modified: saved.last_modified,
    };
    (file, base)
}

/// What a run killed after a parallel batch of two reads would have left: the prompt, the calls,
/// both results and the answer after them.
fn journal_lines(at: usize) -> Vec<JournalEntry> {
    let calls = Message::response(vec![
        Part::tool_call("c1", "read_file", json!({"file_path": "a.txt"})),
        Part::tool_call("c2", "read_file", json!({"file_path": "b.txt"})),
    ]);
    let result = |id: &str, text: &str| Part::tool_return(id, "read_file", text);
    vec![
        JournalEntry {
            at,
            record: JournalRecord::Message(Message::user("second prompt")),
        },
        JournalEntry {
            at: at + 1,
            record: JournalRecord::Message(calls),
        },
        JournalEntry {
            at: at + 2,
            record: JournalRecord::ToolResult(result("c1", "contents-of-a")),
        },
        JournalEntry {
            at: at + 2,
            record: JournalRecord::ToolResult(result("c2", "contents-of-b")),
        },
        JournalEntry {
            at: at + 3,
            record: JournalRecord::Message(Message::response(vec![Part::text(
                "answer after the bad line",
            )])),
        },
    ]
}

fn journal_of(file: &Path) -> PathBuf {
    file.with_extension("jsonl")
}

fn kept_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".jsonl.corrupt-"))
        .collect()
}

/// The one `journal_recovery` notice of a run.
fn recovery_notice(run: &Run) -> Value {
    let notices: Vec<&Value> = run
        .of_type("notice")
        .into_iter()
        .filter(|n| n["kind"] == "journal_recovery")
        .collect();
    assert_eq!(notices.len(), 1, "{}", run.stdout);
    notices[0].clone()
}

#[test]
fn a_bad_line_in_the_middle_is_kept_aside_and_the_lines_around_it_are_sent() {
    let env = TestEnv::new().unwrap();
    let (file, base) = first_session(&env);
    let journal = Journal::new(journal_of(&file));
    journal
        .append(&base, &journal_lines(base.messages))
        .unwrap();
    // Damage the first result's line in its middle (its start, `{"at":N,"tool_result":`, survives).
    let text = std::fs::read(journal.path()).unwrap();
    let mut lines: Vec<Vec<u8>> = text.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
    let bad = &mut lines[3];
    assert!(bad.windows(13).any(|w| w == b"contents-of-a"));
    let middle = bad.len() / 2;
    bad.splice(middle..middle + 6, *b"\x00\xff}{]\"");
    let bad = lines[3].clone();
    std::fs::write(journal.path(), lines.join(&b'\n')).unwrap();

    let fake = FakeProvider::start(vec![Turn::text("continued")]);
    let out = run(&env, &fake, &["--continue", "go on"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);

    let notice = recovery_notice(&out);
    assert_eq!(notice["level"], "warning");
    assert_eq!(notice["recovery"]["recovered"], 4, "{notice}");
    assert_eq!(notice["recovery"]["kept_aside"], 1, "{notice}");
    let kept = PathBuf::from(notice["recovery"]["kept_file"].as_str().unwrap());
    assert!(
        notice["message"]
            .as_str()
            .unwrap()
            .contains(&kept.display().to_string()),
        "{notice}"
    );
    // The notice follows the session's opening, before the request.
    let types: Vec<&str> = out
        .events
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    let opened = types.iter().position(|t| *t == "session_opened").unwrap();
    assert_eq!(types[opened + 1], "notice");

    let kept_text = std::fs::read(&kept).unwrap();
    assert!(
        kept_text
            .split(|b| *b == b'\n')
            .any(|l| l == bad.as_slice()),
        "the bad line is kept as it was"
    );
    let mode = std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert_eq!(kept_files(file.parent().unwrap()), vec![kept]);
    assert!(!journal.path().exists(), "the recovered session was saved");

    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    let body = &requests[0].body;
    assert_tool_pairing(body);
    let sent = body.to_string();
    for before_and_after in [
        "first prompt",
        "second prompt",
        "contents-of-b",
        "answer after the bad line",
        "go on",
    ] {
        assert!(
            sent.contains(before_and_after),
            "{before_and_after} in {sent}"
        );
    }
    assert!(
        !sent.contains("contents-of-a"),
        "the lost result is not made up"
    );
}

#[test]
fn an_edited_first_line_keeps_the_whole_journal_aside_and_says_so() {
    let env = TestEnv::new().unwrap();
    let (file, base) = first_session(&env);
    let edited = JournalBase {
        bytes: base.bytes + 1,
        ..base.clone()
    };
    let journal = Journal::new(journal_of(&file));
    journal
        .append(&edited, &journal_lines(base.messages))
        .unwrap();
    let text = std::fs::read(journal.path()).unwrap();

    let fake = FakeProvider::start(vec![Turn::text("continued")]);
    let out = run(&env, &fake, &["--continue", "go on"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let notice = recovery_notice(&out);
    assert_eq!(notice["recovery"]["recovered"], 0);
    assert_eq!(notice["recovery"]["kept_aside"], 5);
    assert!(
        notice["message"]
            .as_str()
            .unwrap()
            .contains("another save of the session"),
        "{notice}"
    );
    let kept = PathBuf::from(notice["recovery"]["kept_file"].as_str().unwrap());
    assert_eq!(std::fs::read(&kept).unwrap(), text, "kept whole, as it was");
    assert!(!journal.path().exists());
    let sent = fake.requests()[0].body.to_string();
    assert!(sent.contains("first prompt") && !sent.contains("second prompt"));
}

#[test]
fn a_recovery_is_said_on_stderr_in_text_mode() {
    let env = TestEnv::new().unwrap();
    let (file, base) = first_session(&env);
    let journal = Journal::new(journal_of(&file));
    journal
        .append(&base, &journal_lines(base.messages))
        .unwrap();
    let mut text = std::fs::read(journal.path()).unwrap();
    text.extend_from_slice(b"garbage at the end\n");
    std::fs::write(journal.path(), text).unwrap();
    let fake = FakeProvider::start(vec![Turn::text("continued")]);
    let mut cmd = env.command(&bin());
    cmd.args(["run", "--model", "openai:test-model", "--base-url"])
        .arg(fake.base_url())
        .args(["--continue", "go on"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let out = finish(cmd.spawn().unwrap(), None);
    let stderr = out.stderr;
    assert_eq!(out.code, 0, "{stderr}");
    assert!(
        stderr.contains("warning: The journal of session")
            && stderr.contains("Recovered 5 message(s); kept 1 line(s) aside in"),
        "{stderr}"
    );
}
