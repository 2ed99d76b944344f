//! Session storage benchmarks (run by `bench/run.sh`): a journal write per message, saving and
//! loading a 10,000-message session, and listing 500 sessions of 1 MB each (cold: no index; warm:
//! the index answers).

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use serde_json::json;
use tunacode_protocol::{Message, Part, Usage};
use tunacode_store::{
    JournalEntry, JournalRecord, SESSION_FORMAT_VERSION, SessionFile, SessionStore,
};

fn session(id: &str, messages: Vec<Message>) -> SessionFile {
    SessionFile {
        version: SESSION_FORMAT_VERSION,
        session_id: id.into(),
        project_id: "proj".into(),
        created_at: "2026-11-23T00:00:00Z".into(),
        last_modified: format!("2026-11-23T00:00:{:02}Z", id.len() % 60),
        working_directory: "/work".into(),
        current_model: "openai:gpt-5".into(),
        total_tokens: 0,
        session_total_usage: Usage::default(),
        thoughts: vec![],
        messages: messages.into(),
        extra: Default::default(),
    }
}

/// A realistic turn: a call, its result of `result_bytes`, and a short answer.
fn turn(i: usize, result_bytes: usize) -> [Message; 3] {
    let id = format!("call_{i}");
    [
        Message::response(vec![
            Part::text(format!("Step {i}: reading the file.")),
            Part::tool_call(
                &id,
                "read_file",
                json!({"file_path": format!("src/m{i}.rs")}),
            ),
        ]),
        Message::request(vec![Part::tool_return(
            &id,
            "read_file",
            "x".repeat(result_bytes),
        )]),
        Message::user(format!("and now step {}", i + 1)),
    ]
}

fn history(messages: usize, result_bytes: usize) -> Vec<Message> {
    (0..messages.div_ceil(3))
        .flat_map(|i| turn(i, result_bytes))
        .take(messages)
        .collect()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());

    // 1. A journal write (one message, fsync'd).
    let big = session("journal", history(3000, 200));
    let base = store.save(&big).unwrap();
    let journal = store.journal("proj", "journal");
    let mut times = Vec::new();
    for i in 0..200 {
        let entry = JournalEntry {
            at: 3000 + i,
            record: JournalRecord::Message(turn(i, 2000)[1].clone()),
        };
        let start = Instant::now();
        journal.append(&base, &[entry]).unwrap();
        times.push(start.elapsed());
    }
    println!(
        "journal write per message (2 KB tool result, fsync'd, after 3,000 messages): median {:.2?}, max {:.2?}",
        median(times.clone()),
        times.iter().max().unwrap()
    );

    // 2. Save and load a 10,000-message session.
    let file = session("tenk", history(10_000, 300));
    let start = Instant::now();
    store.save(&file).unwrap();
    let save = start.elapsed();
    let size = std::fs::metadata(dir.path().join("proj/tenk.json"))
        .unwrap()
        .len();
    let mut loads = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let loaded = store.load("proj", "tenk").unwrap();
        loads.push(start.elapsed());
        assert_eq!(loaded.file.messages.len(), 10_000);
    }
    println!(
        "10,000-message session ({:.1} MB): save {save:.2?}, load median {:.2?}",
        size as f64 / 1e6,
        median(loads)
    );

    // 3. List 500 sessions of about 1 MB each.
    let listdir = tempfile::tempdir().unwrap();
    let many = SessionStore::new(listdir.path());
    let one_mb = history(600, 3300);
    for i in 0..500 {
        many.save(&session(&format!("s{i:03}"), one_mb.clone()))
            .unwrap();
    }
    let start = Instant::now();
    let (list, _) = many.list("proj").unwrap();
    let cold = start.elapsed();
    assert_eq!(list.len(), 500);
    let mut warm = Vec::new();
    for _ in 0..10 {
        let start = Instant::now();
        let (list, _) = many.list("proj").unwrap();
        warm.push(start.elapsed());
        assert_eq!(list.len(), 500);
    }
    let size = std::fs::metadata(listdir.path().join("proj/s000.json"))
        .unwrap()
        .len();
    println!(
        "listing 500 sessions of {:.1} MB: first (builds the index) {cold:.2?}, then median {:.2?}",
        size as f64 / 1e6,
        median(warm)
    );
}
