use super::*;
use crate::journal_replay::replay_journal;
use pretty_assertions::assert_eq;
use serde_json::json;

fn entry(at: usize, record: JournalRecord) -> JournalEntry {
    JournalEntry { at, record }
}

fn base(messages: usize) -> JournalBase {
    JournalBase {
        bytes: 100,
        messages,
        modified: "2026-11-23T00:00:00Z".into(),
    }
}

fn call(id: &str) -> Message {
    Message::response(vec![Part::tool_call(
        id,
        "read_file",
        json!({"file_path": "a"}),
    )])
}

#[test]
fn appended_lines_are_replayed_in_order_onto_their_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::new(dir.path().join("s.jsonl"));
    journal
        .append(
            &base(1),
            &[entry(1, JournalRecord::Message(Message::user("go")))],
        )
        .unwrap();
    journal
        .append(
            &base(1),
            &[
                entry(2, JournalRecord::Message(call("c1"))),
                entry(
                    3,
                    JournalRecord::ToolResult(Part::tool_return("c1", "read_file", "A")),
                ),
            ],
        )
        .unwrap();
    let text = std::fs::read(journal.path()).unwrap();
    assert_eq!(
        text.iter().filter(|b| **b == b'\n').count(),
        4,
        "a header and three lines"
    );
    let mut messages = vec![Message::user("before")];
    let replay = replay_journal(&text, &base(1), &mut messages);
    assert_eq!((replay.applied, replay.kept.len()), (3, 0));
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[3].parts.len(), 1);
    // Lines that follow another checkpoint are not replayed.
    let mut other = vec![Message::user("before")];
    assert_eq!(replay_journal(&text, &base(2), &mut other).applied, 0);
    assert_eq!(other.len(), 1);
    let mode = std::fs::metadata(journal.path()).unwrap().permissions();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
        0o600
    );
    journal.reset().unwrap();
    assert!(!journal.path().exists());
    journal.reset().unwrap();
}

#[test]
fn finished_tool_results_gather_until_the_whole_answer_replaces_them() {
    let mut messages = vec![Message::user("go"), call("c1")];
    let r1 = Part::tool_return("c1", "read_file", "A");
    let r2 = Part::tool_return("c2", "read_file", "B");
    let whole = Message::request(vec![r1.clone(), r2.clone()]);
    let journal = lines(
        2,
        &[
            entry(2, JournalRecord::ToolResult(r2.clone())),
            entry(2, JournalRecord::ToolResult(r1.clone())),
        ],
    );
    replay_journal(&journal, &base(2), &mut messages);
    assert_eq!(messages[2].parts, vec![r2, r1]);
    let journal = lines(3, &[entry(2, JournalRecord::Message(whole.clone()))]);
    replay_journal(&journal, &base(3), &mut messages);
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[2], whole);
}

/// A journal of `entries` after the header naming `base(messages)`.
fn lines(messages: usize, entries: &[JournalEntry]) -> Vec<u8> {
    let mut text = serde_json::to_vec(&Header {
        base: base(messages),
    })
    .unwrap();
    text.push(b'\n');
    for e in entries {
        text.extend(serde_json::to_vec(e).unwrap());
        text.push(b'\n');
    }
    text
}
