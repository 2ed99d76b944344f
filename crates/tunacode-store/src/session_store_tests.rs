use super::*;
use std::os::unix::fs::PermissionsExt;
use tunacode_protocol::Message;

fn session(id: &str, modified: &str) -> SessionFile {
    crate::session_file::test_session(id, modified)
}

#[test]
fn an_id_that_is_a_path_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("secret.json"), "{}").unwrap();
    let store = SessionStore::new(dir.path().join("sessions"));
    for id in ["../../secret", "../x", "a/b", ".hidden", ""] {
        assert!(
            matches!(
                store.load("proj", id),
                Err(StoreError::SessionNotFound { .. })
            ),
            "{id:?}"
        );
    }
    assert!(is_session_id("419e1ea4-6f90-4b41-9864-40770505bd3c"));
}

#[test]
fn a_unique_prefix_of_an_id_names_its_session_and_a_shared_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    for id in ["df978d65-aaaa", "df978d65-bbbb", "0a1b2c3d-cccc"] {
        store.save(&session(id, "2026-01-01T00:00:00Z")).unwrap();
    }
    assert_eq!(
        store.resolve_id("proj", "0a1b2c3d").unwrap(),
        "0a1b2c3d-cccc"
    );
    assert_eq!(
        store.resolve_id("proj", "df978d65-b").unwrap(),
        "df978d65-bbbb"
    );
    assert_eq!(
        store.resolve_id("proj", "df978d65-aaaa").unwrap(),
        "df978d65-aaaa"
    );
    assert!(matches!(
        store.resolve_id("proj", "df978d65"),
        Err(StoreError::AmbiguousSession { count: 2, .. })
    ));
    // An id nothing begins is left for loading to report, and a path is never matched.
    assert_eq!(store.resolve_id("proj", "ffff").unwrap(), "ffff");
    assert_eq!(store.resolve_id("proj", "../x").unwrap(), "../x");
    assert_eq!(store.resolve_id("nowhere", "0a1b").unwrap(), "0a1b");
}

#[test]
fn a_file_that_is_not_utf8_is_an_error_at_its_place_and_is_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    store.save(&session("a", "2026-01-01T00:00:00Z")).unwrap();
    let path = dir.path().join("proj/a.json");
    let text = std::fs::read(&path).unwrap();
    // A blank first line, and a byte that is not UTF-8 in the prompt's text on the second.
    let at = text.windows(3).position(|w| w == b"fix").unwrap();
    let mut broken = b"\n".to_vec();
    broken.extend_from_slice(&text[..at]);
    broken.push(0xff);
    broken.extend_from_slice(&text[at..]);
    std::fs::write(&path, &broken).unwrap();
    match store.load("proj", "a") {
        Err(StoreError::Malformed { line, column, .. }) => {
            assert_eq!(line, 2, "the line of the bad byte");
            assert!(column > 100, "past the header keys: {column}");
        }
        other => panic!("expected a malformed file, got {other:?}"),
    }
    assert_eq!(
        std::fs::read(&path).unwrap(),
        broken,
        "the file is untouched"
    );
}

#[test]
fn saves_atomically_with_0600_and_loads_back() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let s = session("a", "2026-01-01T00:00:00Z");
    store.save(&s).unwrap();
    let path = dir.path().join("proj/a.json");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let dir_mode = std::fs::metadata(path.parent().unwrap())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(dir_mode & 0o777, 0o700, "the project's folder is private");
    assert_eq!(store.load("proj", "a").unwrap().file, s);
    let mut left: Vec<String> = std::fs::read_dir(dir.path().join("proj"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["a.json", "a.summary.json"],
        "no temporary file left behind"
    );
    let sidecar = dir.path().join("proj/a.summary.json");
    let mode = std::fs::metadata(&sidecar).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the summary is as private as the session");
}

#[test]
fn a_journal_after_the_checkpoint_is_replayed_and_a_stale_one_is_dropped() {
    use crate::journal::{JournalEntry, JournalRecord};
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let s = session("a", "2026-01-01T00:00:00Z");
    let base = store.save(&s).unwrap();
    let journal = store.journal("proj", "a");
    let line = JournalEntry {
        at: 1,
        record: JournalRecord::Message(Message::user("after the save")),
    };
    journal.append(&base, std::slice::from_ref(&line)).unwrap();
    let loaded = store.load("proj", "a").unwrap();
    assert_eq!(loaded.recovered, 1);
    assert_eq!(loaded.file.messages.len(), 2);
    assert_eq!(loaded.base, base);
    // Saving the recovered session removes the journal it includes.
    let mut saved = loaded.file.clone();
    saved.last_modified = "2026-01-01T00:00:05Z".into();
    let new_base = store.save(&saved).unwrap();
    assert!(!journal.path().exists());
    assert_ne!(new_base, base);
    // Lines following the old checkpoint (a crash between save and removal) are not replayed:
    // the stale journal is kept aside, and goes so new lines are not written after its header.
    let stale = store.journal("proj", "a");
    stale.append(&base, &[line]).unwrap();
    let text = std::fs::read(stale.path()).unwrap();
    let loaded = store.load("proj", "a").unwrap();
    assert_eq!((loaded.recovered, loaded.file.messages.len()), (0, 2));
    assert!(!stale.path().exists());
    let kept = loaded.kept_aside.expect("kept aside");
    assert_eq!(kept.reason, crate::JournalProblem::OtherBase(base));
    assert_eq!(kept.lines, 1);
    assert_eq!(
        std::fs::read(&kept.path).unwrap(),
        text,
        "the whole journal"
    );
}

/// A saved session `a` with a journal of `lines` (raw) after a good first line.
fn with_journal(dir: &Path, lines: &[Vec<u8>]) -> (SessionStore, JournalBase) {
    let store = SessionStore::new(dir);
    let base = store.save(&session("a", "2026-01-01T00:00:00Z")).unwrap();
    let journal = store.journal("proj", "a");
    journal.append(&base, &[]).unwrap();
    let mut text = std::fs::read(journal.path()).unwrap();
    for line in lines {
        text.extend_from_slice(line);
        text.push(b'\n');
    }
    std::fs::write(journal.path(), text).unwrap();
    (store, base)
}

fn entry_line(at: usize, text: &str) -> Vec<u8> {
    serde_json::to_vec(&crate::JournalEntry {
        at,
        record: crate::JournalRecord::Message(Message::user(text)),
    })
    .unwrap()
}

fn aside_files(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir.join("proj"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".jsonl.corrupt-"))
        .collect();
    found.sort();
    found
}

#[test]
fn a_bad_line_is_kept_aside_0600_and_the_lines_after_it_replay() {
    let dir = tempfile::tempdir().unwrap();
    let bad = br#"{"at":2,"message":{"kind":"request","parts":[{"part_kind":"us"#.to_vec();
    let (store, _) = with_journal(
        dir.path(),
        &[entry_line(1, "one"), bad.clone(), entry_line(2, "two")],
    );
    let loaded = store.load("proj", "a").unwrap();
    assert_eq!(
        loaded.recovered, 2,
        "the lines before and after the bad one"
    );
    assert_eq!(
        loaded.file.messages[1..],
        [Message::user("one"), Message::user("two")]
    );
    let kept = loaded.kept_aside.expect("kept aside");
    assert_eq!(
        (kept.lines, kept.reason),
        (1, crate::JournalProblem::BadLines)
    );
    assert_eq!(aside_files(dir.path()), vec![kept.path.clone()]);
    let aside = std::fs::read(&kept.path).unwrap();
    let aside_lines: Vec<&[u8]> = aside.split(|b| *b == b'\n').collect();
    assert!(
        aside_lines[0].starts_with(br#"{"base":"#),
        "the first line names the save"
    );
    assert_eq!(aside_lines[1], bad.as_slice());
    let mode = std::fs::metadata(&kept.path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    // The journal stays until the recovered session is saved; the kept file is never removed.
    assert!(store.journal("proj", "a").path().exists());
    store.save(&loaded.file).unwrap();
    assert!(!store.journal("proj", "a").path().exists());
    assert!(kept.path.exists());
}

#[test]
fn a_journal_with_nothing_replayable_is_kept_aside_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = with_journal(dir.path(), &[b"\x00 garbage".to_vec(), entry_line(1, "x")]);
    let loaded = store.load("proj", "a").unwrap();
    assert_eq!((loaded.recovered, loaded.file.messages.len()), (0, 1));
    assert_eq!(loaded.kept_aside.as_ref().map(|k| k.lines), Some(2));
    assert!(!store.journal("proj", "a").path().exists());
    // A second load finds nothing more to keep.
    let again = store.load("proj", "a").unwrap();
    assert_eq!(again.kept_aside, None);
    assert_eq!(aside_files(dir.path()).len(), 1);
}

#[test]
fn a_journal_without_its_first_line_is_kept_aside_whole() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    store.save(&session("a", "2026-01-01T00:00:00Z")).unwrap();
    let journal = store.journal("proj", "a");
    let text = [entry_line(1, "x"), b"\n".to_vec()].concat();
    std::fs::write(journal.path(), &text).unwrap();
    let loaded = store.load("proj", "a").unwrap();
    assert_eq!(loaded.recovered, 0);
    let kept = loaded.kept_aside.expect("kept aside");
    assert_eq!(
        (kept.lines, kept.reason),
        (1, crate::JournalProblem::NoBase)
    );
    assert_eq!(std::fs::read(&kept.path).unwrap(), text);
    assert!(!journal.path().exists());
}

#[test]
fn a_save_is_streamed_to_the_file_and_its_base_names_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let mut file = session("big", "2026-01-01T00:00:00Z");
    // Larger than the write buffer, so the file is written in several pieces.
    let messages: Vec<Message> = (0..2_000)
        .map(|i| Message::user(format!("prompt {i} {}", "x".repeat(64))))
        .collect();
    file.messages = std::sync::Arc::new(messages);
    let base = store.save(&file).unwrap();
    let written = std::fs::read(dir.path().join("proj/big.json")).unwrap();
    assert!(written.len() > 1 << 17);
    assert_eq!(base.bytes, written.len() as u64);
    assert_eq!(base.messages, 2_000);
    assert_eq!(written, serde_json::to_vec(&file).unwrap());
    assert_eq!(store.load("proj", "big").unwrap().file, file);
}

#[test]
fn a_message_of_many_unknown_fields_reads_each_once_and_keeps_their_order() {
    // A hostile file: one message with 50,000 fields of its own (and one repeated).
    let fields: Vec<String> = (0..50_000).map(|i| format!("\"k{i}\":{i}")).collect();
    let message = format!(
        "{{\"kind\":\"request\",\"parts\":[],{},\"k3\":\"last\"}}",
        fields.join(",")
    );
    let read: Message = serde_json::from_str(&message).unwrap();
    assert_eq!(read.extra.len(), 50_000);
    assert_eq!(read.extra["k3"], "last");
    assert_eq!(read.extra.keys().nth(3), Some("k3"));
}

#[test]
fn a_read_session_holds_no_room_beyond_its_messages() {
    let mut file = crate::session_file::test_session("s", "2026-11-22T00:00:00Z");
    file.messages = std::sync::Arc::new(vec![tunacode_protocol::Message::user("hi"); 1000]);
    let read = parse_session(&serde_json::to_vec(&file).unwrap()).unwrap();
    assert_eq!(read.messages.len(), 1000);
    assert_eq!(read.messages.capacity(), 1000);
}
