//! The shadow store against real files and the real `git`: private, and tightened when older.

use std::path::Path;
use std::process::Command;

use super::*;

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
}

/// Every file and folder below `dir` whose mode lets the group or others in.
fn shared(dir: &Path) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).expect("read_dir").flatten() {
            let meta = entry.path().symlink_metadata().expect("meta");
            if meta.permissions().mode() & 0o077 != 0 {
                found.push(format!(
                    "{:o} {}",
                    meta.permissions().mode() & 0o777,
                    entry.path().display()
                ));
            }
            if meta.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    found
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).expect("meta").permissions().mode() & 0o777
}

#[test]
fn the_store_and_every_file_git_writes_in_it_are_private_but_restored_files_are_not() {
    let data = tempfile::tempdir().expect("data");
    let ws = tempfile::tempdir().expect("workspace");
    let cwd = ws.path();
    write(cwd, ".env", "API_KEY=secret\n");
    write(cwd, "a.txt", "a1\n");
    let user_mode = mode(&cwd.join("a.txt"));
    let store = Checkpoints::new(data.path(), cwd);
    let before = store
        .take("s1", "r1", &[], &Stop::default())
        .expect("checkpoint");
    std::fs::remove_file(cwd.join("a.txt")).expect("delete");
    let after = store
        .take("s1", "r2", &[], &Stop::default())
        .expect("second");
    let plan = crate::rewind::tests_support::plan_back(&store, &before, &after);
    let restored = store.restore_files(plan).expect("restore");
    assert_eq!(restored.files.len(), 1, "{restored:?}");
    let checkpoints = data.path().join("checkpoints");
    assert_eq!(mode(&checkpoints), 0o700);
    assert_eq!(mode(&store.git_dir), 0o700);
    assert_eq!(shared(&checkpoints), Vec::<String>::new());
    assert!(
        store.git_dir.join("COMMIT_EDITMSG").exists() && store.git_dir.join("index").exists(),
        "git's own files were checked"
    );
    assert_eq!(
        mode(&cwd.join("a.txt")),
        user_mode,
        "a restored file keeps the user's mode"
    );
}

#[test]
fn a_store_an_older_version_left_readable_is_tightened_when_opened() {
    let data = tempfile::tempdir().expect("data");
    let ws = tempfile::tempdir().expect("workspace");
    write(ws.path(), ".env", "API_KEY=secret\n");
    let store = Checkpoints::new(data.path(), ws.path());
    // What an older version made: git's defaults under a 022 umask.
    std::fs::create_dir_all(&store.git_dir).expect("dir");
    let old = |args: &[&str]| {
        let status = Command::new("git")
            .arg("--git-dir")
            .arg(&store.git_dir)
            .arg("--work-tree")
            .arg(ws.path())
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .status()
            .expect("git");
        assert!(status.success());
    };
    old(&["init", "-q"]);
    old(&["add", "-A"]);
    old(&["commit", "-qm", "old"]);
    for loose in [&store.git_dir, &data.path().join("checkpoints")] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(loose, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    assert!(!shared(data.path()).is_empty(), "the old store is readable");
    store
        .take("s1", "r1", &[], &Stop::default())
        .expect("checkpoint");
    assert_eq!(shared(data.path()), Vec::<String>::new());
}
