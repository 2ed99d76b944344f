use super::*;
use pretty_assertions::assert_eq;

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn persists_across_instances_with_private_file() {
    let dir = tempfile::tempdir().unwrap();
    let history_dir = dir.path().join("tunacode/history");
    let mut first = InputHistory::load(&history_dir, "proj");
    assert!(first.is_empty());
    first.push("hello");
    first.push("two\nlines \"quoted\"");
    first.flush().unwrap();
    let path = history_dir.join("proj.jsonl");
    assert_eq!(first.path(), Some(path.as_path()));
    assert_eq!(lines(&path), [r#""hello""#, r#""two\nlines \"quoted\"""#]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let dir_mode = std::fs::metadata(&history_dir)
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(dir_mode & 0o777, 0o700);
    }
    let second = InputHistory::load(&history_dir, "proj");
    assert_eq!(second.entries(), ["hello", "two\nlines \"quoted\""]);
    assert!(InputHistory::load(&history_dir, "other").is_empty());
}

#[test]
fn suppresses_consecutive_duplicates_and_blanks() {
    let mut history = InputHistory::in_memory();
    for entry in ["a", "a", "b", "  ", "", "a", "a"] {
        history.push(entry);
    }
    assert_eq!(history.entries(), ["a", "b", "a"]);
    assert_eq!(history.path(), None);
}

#[test]
fn navigates_like_a_shell_and_restores_the_draft() {
    let mut history = InputHistory::in_memory();
    assert_eq!(history.up("draft"), None);
    assert_eq!(history.down(), None);
    for entry in ["one", "two\nlines", "three"] {
        history.push(entry);
    }
    assert_eq!(history.up("my draft"), Some("three"));
    assert!(history.is_navigating());
    assert_eq!(history.up("ignored"), Some("two\nlines"));
    assert_eq!(history.up("ignored"), Some("one"));
    assert_eq!(history.up("ignored"), None);
    assert_eq!(history.down().as_deref(), Some("two\nlines"));
    assert_eq!(history.down().as_deref(), Some("three"));
    assert_eq!(history.down().as_deref(), Some("my draft"));
    assert!(!history.is_navigating());
    assert_eq!(history.down(), None);
    // Pushing ends navigation: the next Up starts from the newest again.
    history.up("");
    history.up("");
    history.push("four");
    assert!(!history.is_navigating());
    assert_eq!(history.up(""), Some("four"));
    assert_eq!(history.down().as_deref(), Some(""));
}

#[test]
fn keeps_the_last_thousand_and_compacts_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = InputHistory::load(dir.path(), "p");
    for i in 0..COMPACT_AFTER_LINES {
        history.push(&format!("entry {i}"));
    }
    let path = dir.path().join("p.jsonl");
    assert_eq!(history.len(), MAX_HISTORY_ENTRIES);
    assert_eq!(history.entries()[0], "entry 1000");
    history.flush().unwrap();
    assert_eq!(lines(&path).len(), COMPACT_AFTER_LINES);
    history.push("one more");
    history.flush().unwrap();
    let on_disk = lines(&path);
    assert_eq!(on_disk.len(), MAX_HISTORY_ENTRIES);
    assert_eq!(on_disk[0], r#""entry 1001""#);
    assert_eq!(on_disk[MAX_HISTORY_ENTRIES - 1], r#""one more""#);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let dir_mode = std::fs::metadata(dir.path()).unwrap().permissions().mode();
        assert_eq!(dir_mode & 0o777, 0o700);
    }
    let reloaded = InputHistory::load(dir.path(), "p");
    assert_eq!(reloaded.entries(), history.entries());
}

#[test]
fn loading_keeps_only_the_newest_entries_of_a_long_file() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (0..1500).map(|i| format!("\"e{i}\"\n")).collect();
    std::fs::write(dir.path().join("p.jsonl"), &body).unwrap();
    let history = InputHistory::load(dir.path(), "p");
    assert_eq!(history.len(), MAX_HISTORY_ENTRIES);
    assert_eq!(history.entries()[0], "e500");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("p.jsonl")).unwrap(),
        body
    );
}

#[test]
fn skips_corrupt_lines_without_rewriting_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.jsonl");
    let body = "\"good\"\n{not json\n42\n\n\"also good\"\n\"cut off";
    std::fs::write(&path, body).unwrap();
    let mut history = InputHistory::load(dir.path(), "p");
    assert_eq!(history.entries(), ["good", "also good"]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), body);
    // The next append starts on a fresh line, so the cut-off line does not swallow it.
    history.push("next");
    history.flush().unwrap();
    let reloaded = InputHistory::load(dir.path(), "p");
    assert_eq!(reloaded.entries(), ["good", "also good", "next"]);
}

#[test]
fn write_errors_are_reported_by_flush_but_the_entry_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "").unwrap();
    let mut history = InputHistory::load(&blocker, "p");
    history.push("kept");
    assert!(history.flush().is_err());
    assert_eq!(history.entries(), ["kept"]);
    assert!(history.flush().is_ok(), "an error is reported once");
}
