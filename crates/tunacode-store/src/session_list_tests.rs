use super::*;
use crate::session_file::SessionFile;
use tunacode_protocol::Message;

fn session(id: &str, modified: &str) -> SessionFile {
    crate::session_file::test_session(id, modified)
}

#[test]
fn lists_newest_first_and_reports_broken_files_without_touching_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    store.save(&session("old", "2026-01-01T00:00:00Z")).unwrap();
    store.save(&session("new", "2026-02-01T00:00:00Z")).unwrap();
    let broken = dir.path().join("proj/bad.json");
    std::fs::write(&broken, "{\"version\": 1,").unwrap();
    // File times are coarse: make the broken one clearly the newest.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(&broken)
        .unwrap()
        .set_modified(later)
        .unwrap();
    let (list, errors) = store.list("proj").unwrap();
    let ids: Vec<_> = list.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, ["new", "old"]);
    assert_eq!(list[0].title, "fix the bug");
    assert_eq!(list[0].preview, "› fix the bug\n");
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].to_string().contains("bad.json:1:"),
        "{}",
        errors[0]
    );
    assert_eq!(
        std::fs::read_to_string(&broken).unwrap(),
        "{\"version\": 1,"
    );
    assert!(matches!(
        store.load("proj", "zzz"),
        Err(StoreError::SessionNotFound { .. })
    ));
    // The newest file is the broken one: `latest` says so instead of passing it over.
    assert!(
        store
            .latest("proj")
            .unwrap_err()
            .to_string()
            .contains("bad.json")
    );
    std::fs::remove_file(&broken).unwrap();
    assert_eq!(store.latest("proj").unwrap().unwrap().session_id, "new");
}

#[test]
fn the_index_is_only_a_cache() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    store.save(&session("a", "2026-01-01T00:00:00Z")).unwrap();
    assert_eq!(store.list("proj").unwrap().0.len(), 1);
    let index = dir.path().join("proj").join(INDEX_FILE);
    assert!(index.exists());
    // A file copied in by hand is listed (and loads).
    let copied = session("copied", "2026-03-01T00:00:00Z");
    std::fs::write(
        dir.path().join("proj/copied.json"),
        serde_json::to_vec(&copied).unwrap(),
    )
    .unwrap();
    let (list, _) = store.list("proj").unwrap();
    assert_eq!(list[0].session_id, "copied");
    assert_eq!(store.load("proj", "copied").unwrap().file, copied);
    // A changed file is read again; a removed one disappears; a garbage index is rebuilt.
    let mut changed = session("a", "2026-04-01T00:00:00Z");
    std::sync::Arc::make_mut(&mut changed.messages).push(Message::user("second"));
    store.save(&changed).unwrap();
    std::fs::remove_file(dir.path().join("proj/copied.json")).unwrap();
    std::fs::write(&index, "not json").unwrap();
    let (list, errors) = store.list("proj").unwrap();
    assert!(errors.is_empty());
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].message_count, 2);
    let cached: Index = serde_json::from_slice(&std::fs::read(&index).unwrap()).unwrap();
    assert_eq!(cached.entries.len(), 1);
}

#[test]
fn a_cached_summary_is_used_without_reading_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    store.save(&session("a", "2026-01-01T00:00:00Z")).unwrap();
    store.list("proj").unwrap();
    // Make the file unreadable to the parser but keep its size and time: the cache answers.
    let path = dir.path().join("proj/a.json");
    let meta = std::fs::metadata(&path).unwrap();
    let len = meta.len() as usize;
    std::fs::write(&path, vec![b' '; len]).unwrap();
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(meta.modified().unwrap()).unwrap();
    let (list, errors) = store.list("proj").unwrap();
    assert!(errors.is_empty());
    assert_eq!(list[0].title, "fix the bug");
}

#[test]
fn a_first_listing_reads_the_summary_saved_with_a_session_and_not_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let mut saved = session(
        "aaaaaaaa-0000-0000-0000-000000000001",
        "2026-01-01T00:00:00Z",
    );
    std::sync::Arc::make_mut(&mut saved.messages).push(Message::user("a second prompt"));
    store.save(&saved).unwrap();
    let file = dir
        .path()
        .join("proj/aaaaaaaa-0000-0000-0000-000000000001.json");
    // A file that no longer parses, its size and time put back: only the summary can list it.
    let meta = std::fs::metadata(&file).unwrap();
    let len = meta.len() as usize;
    std::fs::write(&file, vec![b' '; len]).unwrap();
    let times = std::fs::FileTimes::new().set_modified(meta.modified().unwrap());
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_times(times)
        .unwrap();
    let (listed, broken) = store.list("proj").unwrap();
    assert!(broken.is_empty(), "{broken:?}");
    assert_eq!(listed[0].title, "fix the bug");
    // Changed after the summary was written: the file is read (and found broken).
    std::fs::write(&file, b"{").unwrap();
    let (listed, broken) = store.list("proj").unwrap();
    assert!(listed.is_empty() && broken.len() == 1);
}
