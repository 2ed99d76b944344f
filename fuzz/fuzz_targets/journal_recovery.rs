//! Journal recovery on arbitrary bytes: replay the lines that follow a checkpoint onto a history;
//! never a panic, never an index out of range, and every line either replayed or kept aside.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tunacode_protocol::Message;
use tunacode_store::{JournalBase, replay_journal};

fuzz_target!(|data: &[u8]| {
    let base = JournalBase {
        bytes: 100,
        messages: 2,
        modified: "2026-11-23T00:00:00Z".into(),
    };
    let mut messages = vec![Message::user("a"), Message::user("b")];
    let replay = replay_journal(data, &base, &mut messages);
    let lines = data
        .split(|b| *b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .count();
    let header = usize::from(replay.header.is_some());
    assert!(replay.applied + replay.kept.len() + header <= lines);
    assert_eq!(replay.problem.is_some(), !replay.kept.is_empty());
});
