//! End-to-end: everything the agent writes in its data and state folders is the user's alone. A run
//! that takes an undo checkpoint of a workspace holding `.env` leaves only 0700 folders and files
//! without group or other bits (git's own files in the undo store included), and a data folder an
//! older version left readable is tightened.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::*;
use tunacode_testkit::{FakeProvider, TestEnv, Turn};

/// Every path below `root` (itself included) whose mode lets the group or others in, and every
/// folder that is not 0700.
fn not_private(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(path) = stack.pop() {
        let meta = std::fs::symlink_metadata(&path).unwrap();
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 || (meta.is_dir() && mode != 0o700) {
            found.push(format!("{mode:o} {}", path.display()));
        }
        if meta.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        }
    }
    found
}

fn count_files(root: &Path) -> usize {
    let mut count = 0;
    let mut stack = vec![root.to_path_buf()];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else {
            count += 1;
        }
    }
    count
}

#[test]
fn a_run_with_an_undo_checkpoint_leaves_only_private_files_and_fixes_older_ones() {
    let env = TestEnv::new().unwrap();
    std::fs::write(env.workspace().join(".env"), "API_KEY=sk-private\n").unwrap();
    let home = env.workspace().parent().unwrap().to_path_buf();
    let (data, state) = (home.join("data/tunacode"), home.join("state/tunacode"));
    // What an older version left: a readable data folder, models cache and log.
    std::fs::create_dir_all(&data).unwrap();
    std::fs::create_dir_all(&state).unwrap();
    for (file, mode) in [
        (data.join("models.json"), 0o644),
        (state.join("tunacode.log"), 0o644),
    ] {
        std::fs::write(&file, "{}").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    for dir in [&data, &state] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[(
            "w",
            "write_file",
            r#"{"file_path": "new.txt", "content": "fresh\n"}"#,
        )]),
        Turn::text("Wrote it."),
    ]);
    let out = run(&env, &fake, &["--yes", "write a file"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let store = data.join("checkpoints");
    assert!(
        count_files(&store) > 5,
        "the undo store was written: {store:?}"
    );
    assert!(!env.session_files().is_empty());
    assert_eq!(not_private(&data), Vec::<String>::new());
    assert_eq!(not_private(&state), Vec::<String>::new());
}
