//! Journal recovery on arbitrary bytes: read the lines that follow a checkpoint and replay them onto
//! a history; never a panic, never an index out of range.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tunacode_protocol::Message;
use tunacode_store::{JournalBase, apply_journal, read_journal};

fuzz_target!(|data: &[u8]| {
    let base = JournalBase {
        bytes: 100,
        messages: 2,
        modified: "2026-11-23T00:00:00Z".into(),
    };
    let entries = read_journal(data, &base);
    let mut messages = vec![Message::user("a"), Message::user("b")];
    let count = entries.len();
    let applied = apply_journal(&mut messages, entries);
    assert!(applied <= count);
});
