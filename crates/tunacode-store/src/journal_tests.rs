use super::*;
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
    assert_eq!(
        apply_journal(&mut messages, read_journal(&text, &base(1))),
        3
    );
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[3].parts.len(), 1);
    // Lines that follow another checkpoint are not replayed.
    assert!(read_journal(&text, &base(2)).is_empty());
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
fn a_torn_last_line_and_garbage_are_dropped() {
    let mut text = serde_json::to_vec(&Header { base: base(0) }).unwrap();
    text.push(b'\n');
    text.extend(
        serde_json::to_vec(&entry(0, JournalRecord::Message(Message::user("new")))).unwrap(),
    );
    text.push(b'\n');
    text.extend(br#"{"at":1,"message":{"kind":"resp"#);
    let entries = read_journal(&text, &base(0));
    assert_eq!(entries.len(), 1);
    let mut messages = Vec::new();
    apply_journal(&mut messages, entries);
    assert_eq!(messages, vec![Message::user("new")]);
    assert!(read_journal(b"\xff\xfe garbage", &base(0)).is_empty());
    assert!(read_journal(b"", &base(0)).is_empty());
}

#[test]
fn finished_tool_results_gather_until_the_whole_answer_replaces_them() {
    let mut messages = vec![Message::user("go"), call("c1")];
    let r1 = Part::tool_return("c1", "read_file", "A");
    let r2 = Part::tool_return("c2", "read_file", "B");
    let entries = vec![
        entry(2, JournalRecord::ToolResult(r2.clone())),
        entry(2, JournalRecord::ToolResult(r1.clone())),
    ];
    apply_journal(&mut messages, entries);
    assert_eq!(messages[2].parts, vec![r2.clone(), r1.clone()]);
    let whole = Message::request(vec![r1, r2]);
    apply_journal(
        &mut messages,
        vec![entry(2, JournalRecord::Message(whole.clone()))],
    );
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[2], whole);
    // An entry past the end cannot belong to this checkpoint.
    let applied = apply_journal(
        &mut messages,
        vec![entry(9, JournalRecord::Message(Message::user("x")))],
    );
    assert_eq!((applied, messages.len()), (0, 3));
}
