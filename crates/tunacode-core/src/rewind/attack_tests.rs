//! Rewind against a hostile workspace: a repository's filters, a repository inside the workspace,
//! an unreadable file, odd file names, and the user's edits between turns.

use std::path::Path;
use std::sync::Arc;

use tunacode_protocol::runtime::RewindMode;
use tunacode_store::{RewindConfig, TurnNode};

use super::*;
use crate::checkpoints::{Checkpoints, Stop};
use crate::session::Session;

fn setup() -> (tempfile::TempDir, tempfile::TempDir, Checkpoints, Session) {
    let data = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let store = Checkpoints::new(data.path(), ws.path()).with_limits(RewindConfig::default());
    let session = Session::new(ws.path(), "openai:m");
    (data, ws, store, session)
}

/// One turn as the recorder plays it.
fn turn(store: &Checkpoints, session: &mut Session, touched: &[&str], change: impl FnOnce(&Path)) {
    let marker = new_marker();
    Arc::make_mut(&mut session.messages).push(tunacode_protocol::Message::request(vec![
        marked_prompt("t".into(), &marker),
    ]));
    let touched: Vec<String> = touched.iter().map(|s| s.to_string()).collect();
    let images = store.pre_images(&touched).unwrap();
    let before = store.take("s", "b", &touched, &Stop::default()).unwrap();
    change(store.work_tree());
    let early = images.keys().cloned().collect();
    let commit = store.amend(&before, &images, &early).unwrap();
    let before = tunacode_store::Snapshot { commit, ..before };
    let after = store.take("s", "a", &touched, &Stop::default()).unwrap();
    let files = store.changes(&before.commit, &after.commit).unwrap();
    session.tree.nodes.push(TurnNode {
        text: "t".into(),
        time: "2026-11-26T00:00:00Z".into(),
        marker,
        before: Some(before),
        after: Some(after),
        files: files.into_iter().map(|c| c.path).collect(),
    });
}

#[test]
fn a_repository_s_filters_never_run_and_files_come_back_byte_for_byte() {
    let (_d, ws, store, mut session) = setup();
    let root = ws.path();
    let ran = root.join("filter-ran");
    // A filter driver only the user's config could define; the attributes ask for it anyway.
    std::fs::write(
        root.join(".gitattributes"),
        "*.txt filter=evil text eol=crlf\n",
    )
    .unwrap();
    std::fs::write(root.join("a.txt"), "line\n").unwrap();
    turn(&store, &mut session, &["a.txt"], |ws| {
        std::fs::write(ws.join("a.txt"), "changed\n").unwrap();
    });
    rewind(&store, &mut session, 1, RewindMode::Code, "rewind").unwrap();
    assert_eq!(
        std::fs::read(root.join("a.txt")).unwrap(),
        b"line\n",
        "no CRLF added"
    );
    assert!(!ran.exists());
}

#[test]
fn a_repository_inside_the_workspace_is_named_never_recorded_or_entered() {
    let (_d, ws, store, mut session) = setup();
    let root = ws.path();
    let inner = root.join("vendor/lib");
    std::fs::create_dir_all(inner.join(".git")).unwrap();
    std::fs::write(inner.join("x.c"), "int x;\n").unwrap();
    std::fs::write(root.join("a.txt"), "a\n").unwrap();
    turn(&store, &mut session, &["a.txt"], |ws| {
        std::fs::write(ws.join("a.txt"), "b\n").unwrap();
        std::fs::write(ws.join("vendor/lib/x.c"), "int y;\n").unwrap();
    });
    let before = session.tree.nodes[0].before.clone().unwrap();
    assert_eq!(before.nested, ["vendor/lib"]);
    let rewound = rewind(&store, &mut session, 1, RewindMode::Code, "rewind").unwrap();
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "a\n");
    assert_eq!(
        std::fs::read_to_string(inner.join("x.c")).unwrap(),
        "int y;\n"
    );
    assert!(
        rewound.notes.iter().any(|n| n.contains("vendor/lib")),
        "{:?}",
        rewound.notes
    );
}

#[test]
fn an_unreadable_file_does_not_stop_the_snapshot() {
    use std::os::unix::fs::PermissionsExt;
    let (_d, ws, store, mut session) = setup();
    let root = ws.path();
    std::fs::write(root.join("locked"), "secret").unwrap();
    std::fs::set_permissions(root.join("locked"), std::fs::Permissions::from_mode(0o000)).unwrap();
    std::fs::write(root.join("a.txt"), "a\n").unwrap();
    turn(&store, &mut session, &["a.txt"], |ws| {
        std::fs::write(ws.join("a.txt"), "b\n").unwrap();
    });
    rewind(&store, &mut session, 1, RewindMode::Code, "rewind").unwrap();
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "a\n");
}

#[test]
fn a_quoted_file_name_cannot_pose_as_another_file() {
    let (_d, ws, store, mut session) = setup();
    let root = ws.path();
    std::fs::write(root.join("AGENTS.md"), "the user's rules\n").unwrap();
    std::fs::write(root.join(".gitignore"), "\"*\n").unwrap();
    std::fs::write(root.join("\"AGENTS.md\""), "attacker rules\n").unwrap();
    turn(&store, &mut session, &["\"AGENTS.md\"", "b.txt"], |ws| {
        std::fs::write(ws.join("b.txt"), "b\n").unwrap();
    });
    rewind(&store, &mut session, 1, RewindMode::Code, "rewind").unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("AGENTS.md")).unwrap(),
        "the user's rules\n"
    );
}

#[test]
fn an_edit_the_user_made_between_two_turns_is_kept() {
    let (_d, ws, store, mut session) = setup();
    let root = ws.path();
    std::fs::write(root.join("a.txt"), "a0\n").unwrap();
    turn(&store, &mut session, &["a.txt"], |ws| {
        std::fs::write(ws.join("a.txt"), "a1\n").unwrap();
    });
    std::fs::write(root.join("a.txt"), "the user's a\n").unwrap();
    turn(&store, &mut session, &["a.txt"], |ws| {
        let text = std::fs::read_to_string(ws.join("a.txt")).unwrap();
        std::fs::write(ws.join("a.txt"), format!("{text}and the agent's\n")).unwrap();
    });
    let rewound = rewind(&store, &mut session, 1, RewindMode::Code, "rewind").unwrap();
    assert_eq!(rewound.kept, ["a.txt"], "{}", rewound.describe());
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "the user's a\nand the agent's\n"
    );
}
