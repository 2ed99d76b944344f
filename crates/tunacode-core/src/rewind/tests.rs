//! Rewind, undo, redo, fork and export against real files and the real `git`: turns are played as
//! the request's recorder plays them (pre-images, the snapshot before, the change, the amended
//! snapshot, the snapshot after).

use std::path::Path;
use std::sync::Arc;

use tunacode_protocol::runtime::{ExportFormat, RewindMode};
use tunacode_protocol::{Message, Part};
use tunacode_store::{RewindConfig, SessionStore, TurnNode};

use super::*;
use crate::checkpoints::{Checkpoints, Stop};
use crate::session::Session;

struct World {
    _data: tempfile::TempDir,
    ws: tempfile::TempDir,
    store: Checkpoints,
    session: Session,
}

fn world(limits: RewindConfig) -> World {
    let data = tempfile::tempdir().expect("data");
    let ws = tempfile::tempdir().expect("ws");
    let store = Checkpoints::new(data.path(), ws.path()).with_limits(limits);
    let session = Session::new(ws.path(), "openai:m");
    World {
        _data: data,
        ws,
        store,
        session,
    }
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).expect("write");
}

fn read(dir: &Path, name: &str) -> Option<String> {
    std::fs::read_to_string(dir.join(name)).ok()
}

/// Plays one turn: `touched` are the files its writes name; `change` is what it does.
fn turn(w: &mut World, text: &str, touched: &[&str], change: impl FnOnce(&Path)) {
    let marker = new_marker();
    Arc::make_mut(&mut w.session.messages)
        .push(Message::request(vec![marked_prompt(text.into(), &marker)]));
    let touched: Vec<String> = touched.iter().map(|s| s.to_string()).collect();
    let images = w.store.pre_images(&touched).expect("pre-images");
    let before = w
        .store
        .take("s", "b", &touched, &Stop::default())
        .expect("before");
    change(w.ws.path());
    Arc::make_mut(&mut w.session.messages)
        .push(Message::response(vec![Part::text(format!("did {text}"))]));
    let early: std::collections::HashSet<String> = images.keys().cloned().collect();
    let commit = w.store.amend(&before, &images, &early).expect("amend");
    let before = tunacode_store::Snapshot { commit, ..before };
    let after = w
        .store
        .take("s", "a", &touched, &Stop::default())
        .expect("after");
    let files = w
        .store
        .changes(&before.commit, &after.commit)
        .expect("changes");
    w.session.tree.nodes.push(TurnNode {
        text: text.into(),
        time: "2026-11-26T00:00:00Z".into(),
        marker,
        before: Some(before),
        after: Some(after),
        files: files.into_iter().map(|c| c.path).collect(),
    });
}

fn three_turns(w: &mut World) {
    let ws = w.ws.path().to_path_buf();
    write(&ws, "a.txt", "a0\n");
    write(&ws, "b.txt", "b0\n");
    write(&ws, ".gitignore", ".env\n");
    write(&ws, ".env", "KEY=0\n");
    turn(w, "one", &["a.txt", "new1.txt"], |ws| {
        write(ws, "a.txt", "a1\n");
        write(ws, "new1.txt", "n1\n");
    });
    turn(w, "two", &["b.txt", ".env"], |ws| {
        write(ws, "b.txt", "b1\n");
        write(ws, ".env", "KEY=2\n");
    });
    turn(w, "three", &["a.txt"], |ws| {
        write(ws, "a.txt", "a3\n");
        std::fs::remove_file(ws.join("b.txt")).expect("rm");
    });
}

#[test]
fn rewind_restores_that_point_keeps_the_user_s_edit_goes_further_and_redo_returns() {
    let mut w = world(RewindConfig::default());
    three_turns(&mut w);
    let ws = w.ws.path().to_path_buf();
    write(&ws, "new1.txt", "the user's\n");
    let rewound = rewind(&w.store, &mut w.session, 2, RewindMode::All, "rewind").expect("rewind");
    assert_eq!(read(&ws, "a.txt").as_deref(), Some("a1\n"));
    assert_eq!(read(&ws, "b.txt").as_deref(), Some("b0\n"));
    assert_eq!(
        read(&ws, ".env").as_deref(),
        Some("KEY=0\n"),
        "an ignored file the agent wrote"
    );
    assert_eq!(read(&ws, "new1.txt").as_deref(), Some("the user's\n"));
    assert_eq!(rewound.text, "two");
    assert_eq!(
        rewound.kept,
        Vec::<String>::new(),
        "turn 1's file is not rewound yet"
    );
    assert_eq!(w.session.messages.len(), 2);
    assert_eq!(w.session.tree.nodes.len(), 1);

    let again = rewind(&w.store, &mut w.session, 1, RewindMode::All, "rewind").expect("again");
    assert_eq!(read(&ws, "a.txt").as_deref(), Some("a0\n"));
    assert_eq!(read(&ws, "new1.txt").as_deref(), Some("the user's\n"));
    assert_eq!(
        again.kept,
        vec!["new1.txt".to_string()],
        "{}",
        again.describe()
    );
    assert!(
        again.describe().contains("kept new1.txt"),
        "{}",
        again.describe()
    );
    assert!(w.session.messages.is_empty());

    let back = redo(&w.store, &mut w.session).expect("redo");
    assert_eq!(read(&ws, "a.txt").as_deref(), Some("a3\n"));
    assert_eq!(read(&ws, "b.txt"), None);
    assert_eq!(read(&ws, ".env").as_deref(), Some("KEY=2\n"));
    assert_eq!(w.session.messages.len(), 6);
    assert_eq!(w.session.tree.nodes.len(), 3);
    assert_eq!(back.kind, "redo");
    assert!(redo(&w.store, &mut w.session).is_err(), "one redo");
}

#[test]
fn code_and_conversation_rewind_alone_and_undo_steps_back_one_prompt_at_a_time() {
    let mut w = world(RewindConfig::default());
    three_turns(&mut w);
    let ws = w.ws.path().to_path_buf();
    let talk = rewind(
        &w.store,
        &mut w.session,
        3,
        RewindMode::Conversation,
        "rewind",
    )
    .expect("talk");
    assert_eq!(
        read(&ws, "a.txt").as_deref(),
        Some("a3\n"),
        "files untouched"
    );
    assert_eq!((w.session.messages.len(), talk.files.len()), (4, 0));
    redo(&w.store, &mut w.session).expect("redo");

    let first = undo(&w.store, &mut w.session, 1).expect("undo");
    assert_eq!(first.prompt, 3);
    assert_eq!(read(&ws, "a.txt").as_deref(), Some("a1\n"));
    assert_eq!(read(&ws, "b.txt").as_deref(), Some("b1\n"));
    assert_eq!(w.session.messages.len(), 6, "undo leaves the conversation");
    let second = undo(&w.store, &mut w.session, 1).expect("undo again");
    assert_eq!(second.prompt, 2, "a second undo goes further back");
    assert_eq!(read(&ws, "b.txt").as_deref(), Some("b0\n"));
    assert_eq!(read(&ws, ".env").as_deref(), Some("KEY=0\n"));
    undo(&w.store, &mut w.session, 1).expect("undo to the first");
    assert_eq!(
        read(&ws, "new1.txt"),
        None,
        "a file the turn created is removed"
    );
    let none = undo(&w.store, &mut w.session, 1).expect_err("nothing before");
    assert!(none.to_string().contains("nothing to undo"), "{none}");
    redo(&w.store, &mut w.session).expect("redo");
    assert_eq!(read(&ws, "a.txt").as_deref(), Some("a3\n"));
    assert_eq!(read(&ws, "new1.txt").as_deref(), Some("n1\n"));
}

#[test]
fn a_file_over_the_cap_is_named_and_a_late_snapshot_is_completed_by_pre_images() {
    let mut w = world(RewindConfig {
        max_file_mb: 1,
        ..RewindConfig::default()
    });
    let ws = w.ws.path().to_path_buf();
    std::fs::write(ws.join("big.bin"), vec![7u8; 2 << 20]).expect("big");
    write(&ws, "a.txt", "a0\n");
    turn(&mut w, "grow", &[], |ws| {
        let mut big = std::fs::OpenOptions::new()
            .append(true)
            .open(ws.join("big.bin"))
            .unwrap();
        std::io::Write::write_all(&mut big, b"more").unwrap();
    });
    let node = &w.session.tree.nodes[0];
    assert_eq!(node.before.as_ref().unwrap().skipped[0].path, "big.bin");
    // A late snapshot: taken after the edit began, completed with the pre-image.
    let images = w.store.pre_images(&["a.txt".to_string()]).unwrap();
    write(&ws, "a.txt", "edited before the snapshot finished\n");
    let mut late = w.store.take("s", "late", &[], &Stop::default()).unwrap();
    late.late = true;
    let early = images.keys().cloned().collect();
    let commit = w.store.amend(&late, &images, &early).unwrap();
    let held = w.store.entries_at(&commit, &["a.txt".to_string()]).unwrap();
    assert_eq!(w.store.blob(&held["a.txt"].blob).unwrap(), b"a0\n");

    let rewound = rewind(&w.store, &mut w.session, 1, RewindMode::Code, "rewind").expect("rewind");
    let skipped: Vec<&str> = rewound.skipped.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(skipped, ["big.bin"], "{}", rewound.describe());
    assert!(
        rewound.describe().contains("over the 1 MiB cap"),
        "{}",
        rewound.describe()
    );
}

#[test]
fn a_restore_never_writes_through_a_link_planted_where_a_folder_was() {
    let mut w = world(RewindConfig::default());
    let ws = w.ws.path().to_path_buf();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir(ws.join("src")).unwrap();
    write(&ws, "src/x.txt", "x0\n");
    turn(&mut w, "edit", &["src/x.txt"], |ws| {
        write(ws, "src/x.txt", "x1\n")
    });
    std::fs::remove_dir_all(ws.join("src")).unwrap();
    std::os::unix::fs::symlink(outside.path(), ws.join("src")).unwrap();
    write(outside.path(), "x.txt", "x1\n");
    let rewound = rewind(&w.store, &mut w.session, 1, RewindMode::Code, "rewind").expect("rewind");
    assert_eq!(
        read(outside.path(), "x.txt").as_deref(),
        Some("x1\n"),
        "never written through"
    );
    assert!(
        rewound
            .kept
            .iter()
            .chain(rewound.skipped.iter().map(|s| &s.path))
            .any(|p| p == "src/x.txt"),
        "{}",
        rewound.describe()
    );
}

#[test]
fn a_fork_ends_after_its_prompt_and_leaves_the_original() {
    let mut w = world(RewindConfig::default());
    three_turns(&mut w);
    let forked = fork(&w.session, Some(1)).expect("fork");
    assert_ne!(forked.id, w.session.id);
    assert_eq!(forked.messages.len(), 2);
    assert_eq!(forked.tree.nodes.len(), 1);
    let parent = forked.tree.parent.as_ref().unwrap();
    assert_eq!(
        (parent.session_id.as_str(), parent.prompt),
        (w.session.id.as_str(), 1)
    );
    assert_eq!(w.session.messages.len(), 6);
    assert!(fork(&w.session, Some(4)).is_err());
}

#[test]
fn a_json_export_imports_as_a_new_session_and_exports_the_same_bytes_redacted() {
    let mut w = world(RewindConfig::default());
    three_turns(&mut w);
    Arc::make_mut(&mut w.session.messages)
        .push(Message::user("my key is sk-proj-abcdefghijklmnopqrstuv"));
    let sessions = tempfile::tempdir().unwrap();
    let store = SessionStore::new(sessions.path());
    let file = w.session.to_file();
    let json = export(&file, &w.session.tree, ExportFormat::Json);
    assert!(!json.contains("abcdefghijklmnopqrstuv"), "redacted");
    assert!(
        !json.contains(&w.session.id),
        "where it lived is not exported"
    );
    let path = sessions.path().join("export.json");
    std::fs::write(&path, &json).unwrap();
    let id = import(&path, &store, w.ws.path()).expect("import");
    assert_ne!(id, w.session.id);
    let project = tunacode_store::project_id(w.ws.path());
    let loaded = store.load(&project, &id).unwrap().file;
    let tree = store.load_tree(&project, &id).unwrap().tree;
    assert_eq!(export(&loaded, &tree, ExportFormat::Json), json);
    let md = export(&loaded, &tree, ExportFormat::Md);
    assert!(md.contains("## Prompt 3\n\n> three"), "{md}");
    // A crafted export that names snapshots gets none: they would point a rewind at other files.
    let mut crafted: serde_json::Value = serde_json::from_str(&json).unwrap();
    crafted["tree"]["nodes"][0]["before"] = serde_json::json!({"commit": "0123456789abcdef"});
    std::fs::write(&path, crafted.to_string()).unwrap();
    let id = import(&path, &store, w.ws.path()).expect("import");
    let tree = store.load_tree(&project, &id).unwrap().tree;
    assert!(
        tree.nodes
            .iter()
            .all(|n| n.before.is_none() && n.after.is_none())
    );
    let bad = sessions.path().join("bad.json");
    std::fs::write(
        &bad,
        "{\"tunacode_export\": 9, \"session\": {}, \"tree\": {\"version\": 1}}",
    )
    .unwrap();
    let err = import(&bad, &store, w.ws.path()).expect_err("version");
    assert!(err.to_string().contains("export version 9"), "{err}");
}
