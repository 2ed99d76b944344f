//! Checkpoints against real files and the real `git`.

use super::*;

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("dir");
    }
    std::fs::write(path, text).expect("write");
}

fn read(dir: &Path, name: &str) -> Option<String> {
    std::fs::read_to_string(dir.join(name)).ok()
}

#[test]
fn undo_puts_back_changed_deleted_and_new_files_and_leaves_ignored_ones() {
    let data = tempfile::tempdir().expect("data");
    let ws = tempfile::tempdir().expect("workspace");
    let cwd = ws.path();
    write(cwd, "a.txt", "a1\n");
    write(cwd, "dir/b.txt", "b1\n");
    write(cwd, ".gitignore", "build/\n");
    write(cwd, "build/out.bin", "old build\n");
    let store = Checkpoints::new(data.path(), cwd);
    assert!(store.list("s1").expect("empty list").is_empty());

    store
        .take("s1", "r1", &Stop::default())
        .expect("checkpoint");
    write(cwd, "a.txt", "a2\n");
    std::fs::remove_file(cwd.join("dir/b.txt")).expect("delete");
    write(cwd, "new.txt", "new\n");
    write(cwd, "build/out.bin", "new build\n");

    let (checkpoint, mut restored) = store.undo("s1", 1).expect("undo");
    assert_eq!(checkpoint.request_id, "r1");
    restored.sort_by(|x, y| x.path.cmp(&y.path));
    let summary: Vec<(&str, &str)> = restored.iter().map(|r| (r.path.as_str(), r.how)).collect();
    assert_eq!(
        summary,
        [
            ("a.txt", "restored"),
            ("dir/b.txt", "recreated"),
            ("new.txt", "removed")
        ]
    );
    assert_eq!(read(cwd, "a.txt").as_deref(), Some("a1\n"));
    assert_eq!(read(cwd, "dir/b.txt").as_deref(), Some("b1\n"));
    assert_eq!(read(cwd, "new.txt"), None);
    assert_eq!(
        read(cwd, "build/out.bin").as_deref(),
        Some("new build\n"),
        "ignored files are left alone"
    );
    assert!(
        !cwd.join(".git").exists(),
        "nothing is written into the workspace's own git"
    );
}

#[test]
fn checkpoints_are_per_session_newest_first_and_undo_can_go_further_back() {
    let data = tempfile::tempdir().expect("data");
    let ws = tempfile::tempdir().expect("workspace");
    let cwd = ws.path();
    let store = Checkpoints::new(data.path(), cwd);
    write(cwd, "f.txt", "1\n");
    store.take("s1", "r1", &Stop::default()).expect("first");
    write(cwd, "f.txt", "2\n");
    store
        .take("s2", "other", &Stop::default())
        .expect("another session");
    store.take("s1", "r2", &Stop::default()).expect("second");
    write(cwd, "f.txt", "3\n");
    let list = store.list("s1").expect("list");
    let requests: Vec<&str> = list.iter().map(|c| c.request_id.as_str()).collect();
    assert_eq!(requests, ["r2", "r1"]);
    let err = store.undo("s1", 3).expect_err("only two");
    assert!(
        err.to_string().contains("has 2 checkpoint(s), not 3"),
        "{err}"
    );
    store.undo("s1", 2).expect("back to the first");
    assert_eq!(read(cwd, "f.txt").as_deref(), Some("1\n"));
    let none = Checkpoints::new(data.path(), cwd)
        .undo("s9", 1)
        .expect_err("nothing");
    assert!(none.to_string().contains("no checkpoint"), "{none}");
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
    store
        .take("s1", "r1", &Stop::default())
        .expect("checkpoint");
    std::fs::remove_file(cwd.join("a.txt")).expect("delete");
    store.take("s1", "r2", &Stop::default()).expect("second");
    store.undo("s1", 2).expect("undo");
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
        .take("s1", "r1", &Stop::default())
        .expect("checkpoint");
    assert_eq!(shared(data.path()), Vec::<String>::new());
}
