use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;
use tunacode_protocol::Part;

fn base(messages: usize) -> JournalBase {
    JournalBase {
        bytes: 100,
        messages,
        modified: "2026-11-23T00:00:00Z".into(),
    }
}

fn header(messages: usize) -> Vec<u8> {
    serde_json::to_vec(&json!({"base": base(messages)})).unwrap()
}

fn message(at: usize, message: Message) -> Vec<u8> {
    serde_json::to_vec(&JournalEntry {
        at,
        record: JournalRecord::Message(message),
    })
    .unwrap()
}

fn result(at: usize, id: &str, text: &str) -> Vec<u8> {
    serde_json::to_vec(&JournalEntry {
        at,
        record: JournalRecord::ToolResult(Part::tool_return(id, "read_file", text)),
    })
    .unwrap()
}

fn calls(ids: &[&str]) -> Message {
    Message::response(
        ids.iter()
            .map(|id| Part::tool_call(*id, "read_file", json!({"file_path": id})))
            .collect(),
    )
}

/// Damages a line in the middle, as a flipped run of bytes would: its start survives.
fn damaged(mut line: Vec<u8>) -> Vec<u8> {
    let middle = line.len() / 2;
    line.splice(middle..middle + 4, *b"\xff\"}{");
    line
}

fn text(lines: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for line in lines {
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out
}

fn start() -> Vec<Message> {
    vec![Message::user("before")]
}

#[test]
fn a_whole_journal_replays_with_nothing_kept() {
    let journal = text(&[header(1), message(1, calls(&["a"])), result(2, "a", "A")]);
    let mut messages = start();
    let replay = replay_journal(&journal, &base(1), &mut messages);
    assert_eq!((replay.applied, replay.kept.len()), (2, 0));
    assert_eq!(replay.problem, None);
    assert_eq!(messages.len(), 3);
    assert_eq!(
        replay_journal(b"", &base(1), &mut start()),
        Replay::default()
    );
}

#[test]
fn after_a_lost_tool_result_the_lines_that_do_not_need_it_replay() {
    let bad = damaged(result(2, "a", "the first result"));
    let journal = text(&[
        header(1),
        message(1, calls(&["a", "b"])),
        bad.clone(),
        result(2, "b", "B"),
        message(3, Message::response(vec![Part::text("after")])),
    ]);
    let mut messages = start();
    let replay = replay_journal(&journal, &base(1), &mut messages);
    assert_eq!(replay.applied, 3);
    assert_eq!(replay.kept, vec![bad]);
    assert_eq!(replay.problem, Some(JournalProblem::BadLines));
    assert_eq!(replay.header, Some(header(1)));
    assert_eq!(messages.len(), 4);
    assert_eq!(
        messages[2].parts,
        vec![Part::tool_return("b", "read_file", "B")]
    );
    assert_eq!(messages[3], Message::response(vec![Part::text("after")]));
}

#[test]
fn the_first_result_of_a_batch_lost_still_leaves_its_request() {
    let bad = damaged(result(2, "a", "the first result"));
    let journal = text(&[
        header(1),
        message(1, calls(&["a"])),
        bad,
        message(3, Message::response(vec![Part::text("after")])),
    ]);
    let mut messages = start();
    let replay = replay_journal(&journal, &base(1), &mut messages);
    assert_eq!((replay.applied, replay.kept.len()), (2, 1));
    assert_eq!(messages[2], Message::request(Vec::new()));
    assert_eq!(messages[3], Message::response(vec![Part::text("after")]));
}

#[test]
fn lines_that_need_a_lost_message_are_kept_aside_until_one_replaces_it() {
    let bad = damaged(message(1, calls(&["a"])));
    let needs_it = result(2, "a", "A");
    let past_it = message(3, Message::response(vec![Part::text("x")]));
    let journal = text(&[
        header(1),
        bad.clone(),
        needs_it.clone(),
        past_it.clone(),
        message(1, Message::user("rewritten")),
        message(2, Message::response(vec![Part::text("answer")])),
    ]);
    let mut messages = start();
    let replay = replay_journal(&journal, &base(1), &mut messages);
    assert_eq!(replay.kept, vec![bad, needs_it, past_it]);
    assert_eq!(replay.applied, 2);
    assert_eq!(
        messages,
        vec![
            Message::user("before"),
            Message::user("rewritten"),
            Message::response(vec![Part::text("answer")])
        ]
    );
}

#[test]
fn a_result_for_a_lost_call_message_is_kept_aside() {
    let bad = damaged(message(1, calls(&["a"])));
    let journal = text(&[header(1), bad, result(1, "a", "A")]);
    let mut messages = start();
    let replay = replay_journal(&journal, &base(1), &mut messages);
    assert_eq!((replay.applied, replay.kept.len()), (0, 2));
    assert_eq!(messages, start());
}

#[test]
fn after_a_line_of_unknown_position_nothing_is_trusted() {
    let journal = text(&[
        header(1),
        message(1, Message::user("kept")),
        b"\x00\x01garbage".to_vec(),
        message(2, Message::response(vec![Part::text("not trusted")])),
    ]);
    let mut messages = start();
    let replay = replay_journal(&journal, &base(1), &mut messages);
    assert_eq!((replay.applied, replay.kept.len()), (1, 2));
    assert_eq!(messages.len(), 2);
}

#[test]
fn a_lost_line_never_removes_messages_the_history_has() {
    // A damaged rewrite of an early message (pruning, compaction) would cut the history there.
    let journal = text(&[
        header(3),
        damaged(message(1, Message::user("pruned"))),
        message(2, Message::user("rewritten too")),
        message(3, Message::user("new")),
    ]);
    let mut messages = vec![Message::user("a"), Message::user("b"), Message::user("c")];
    let before = messages.clone();
    let replay = replay_journal(&journal, &base(3), &mut messages);
    assert_eq!((replay.applied, replay.kept.len()), (0, 3));
    assert_eq!(messages, before);
}

#[test]
fn a_readable_line_that_does_not_fit_is_kept_aside() {
    let past_end = message(5, Message::user("x"));
    let not_a_request = result(1, "a", "A");
    let journal = text(&[header(2), past_end.clone(), not_a_request.clone()]);
    let mut messages = vec![Message::user("go"), calls(&["a"])];
    let before = messages.clone();
    let replay = replay_journal(&journal, &base(2), &mut messages);
    assert_eq!(replay.kept, vec![past_end, not_a_request]);
    assert_eq!(replay.problem, Some(JournalProblem::BadLines));
    assert_eq!(messages, before);
}

#[test]
fn a_torn_last_line_is_kept_aside() {
    let mut journal = text(&[header(1), message(1, Message::user("whole"))]);
    journal.extend_from_slice(br#"{"at":2,"message":{"kind":"resp"#);
    let mut messages = start();
    let replay = replay_journal(&journal, &base(1), &mut messages);
    assert_eq!(replay.applied, 1);
    assert_eq!(
        replay.kept,
        vec![br#"{"at":2,"message":{"kind":"resp"#.to_vec()]
    );
}

#[test]
fn a_missing_or_edited_first_line_keeps_every_line_aside() {
    let line = message(1, Message::user("x"));
    let mut messages = start();
    let replay = replay_journal(&text(std::slice::from_ref(&line)), &base(1), &mut messages);
    assert_eq!(replay.problem, Some(JournalProblem::NoBase));
    assert_eq!(
        (replay.applied, replay.kept.clone()),
        (0, vec![line.clone()])
    );
    let edited = br#"{"base":{"bytes":100,"messages":"one"}}"#.to_vec();
    let replay = replay_journal(
        &text(&[edited.clone(), line.clone()]),
        &base(1),
        &mut messages,
    );
    assert_eq!(replay.problem, Some(JournalProblem::NoBase));
    assert_eq!(replay.kept, vec![edited, line.clone()]);
    let replay = replay_journal(&text(&[header(2), line.clone()]), &base(1), &mut messages);
    assert_eq!(replay.problem, Some(JournalProblem::OtherBase(base(2))));
    assert_eq!(replay.kept, vec![line]);
    assert!(
        replay.problem.unwrap().to_string().contains("another save"),
        "says why"
    );
    assert_eq!(messages, start(), "nothing replayed");
    let alone = replay_journal(&text(&[header(2)]), &base(1), &mut messages);
    assert_eq!(
        alone,
        Replay::default(),
        "an old first line alone holds nothing"
    );
}

#[test]
fn the_position_of_a_damaged_line_is_read_from_its_start() {
    assert_eq!(
        damaged_position(br#"{"at":12,"tool_result":{"x"#),
        Some((12, true))
    );
    assert_eq!(damaged_position(br#"{"at":3,"message":"#), Some((3, false)));
    assert_eq!(damaged_position(br#"{"at":3,"other":1}"#), None);
    assert_eq!(damaged_position(br#"{"at":,"message":"#), None);
    assert_eq!(damaged_position(b"garbage"), None);
}
