//! Worktrees: checked out at the parent's state (uncommitted and untracked files included), read
//! back as changes, removed without a trace in the repository's list.

use std::path::Path;
use std::process::Command;

use super::Worktree;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn no_secrets() -> tunacode_tools::SecretPaths {
    tunacode_tools::SecretPaths::new(None, &[], &[])
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/a.txt"), "one\n").unwrap();
    std::fs::write(dir.path().join("src/gone.txt"), "bye\n").unwrap();
    std::fs::write(dir.path().join(".gitignore"), "target/\n").unwrap();
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "first"]);
    dir
}

#[test]
fn a_worktree_starts_from_the_parent_s_uncommitted_state_and_reads_back_what_changed() {
    let repo = repo();
    let root = repo.path();
    // Uncommitted: a change, an untracked file, an ignored one, a staged one left as it is.
    std::fs::write(root.join("src/a.txt"), "one\ntwo\n").unwrap();
    std::fs::write(root.join("src/new.txt"), "fresh\n").unwrap();
    std::fs::create_dir(root.join("target")).unwrap();
    std::fs::write(root.join("target/big.bin"), "ignored").unwrap();
    let staged_before = git(root, &["diff", "--cached", "--name-only"]);

    let worktree = Worktree::create(&root.join("src"), &no_secrets())
        .unwrap()
        .expect("in git");
    let dir = worktree.workdir();
    let checkout = dir.parent().unwrap();
    assert!(dir.ends_with("src"), "{}", dir.display());
    assert_eq!(checkout.file_name(), checkout.parent().unwrap().file_name());
    assert_eq!(
        std::fs::read_to_string(dir.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("new.txt")).unwrap(),
        "fresh\n"
    );
    assert!(
        !dir.join("../target").exists(),
        "ignored files are not copied"
    );
    assert_eq!(
        git(root, &["diff", "--cached", "--name-only"]),
        staged_before
    );

    std::fs::write(dir.join("a.txt"), "one\ntwo\nthree\n").unwrap();
    std::fs::write(dir.join("b.txt"), "added\n").unwrap();
    std::fs::remove_file(dir.join("gone.txt")).unwrap();
    std::fs::write(dir.join("../README"), "outside src\n").unwrap();
    let changes = worktree.changes().unwrap();
    let mut files: Vec<(String, Option<String>, Option<String>)> = changes
        .files
        .iter()
        .map(|f| {
            let text =
                |b: &Option<Vec<u8>>| b.as_ref().map(|b| String::from_utf8_lossy(b).into_owned());
            (
                f.path.display().to_string(),
                text(&f.before),
                text(&f.after),
            )
        })
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            (
                "a.txt".into(),
                Some("one\ntwo\n".into()),
                Some("one\ntwo\nthree\n".into())
            ),
            ("b.txt".into(), None, Some("added\n".into())),
            ("gone.txt".into(), Some("bye\n".into()), None),
        ]
    );
    assert_eq!(
        changes.not_applied,
        ["README (outside the working directory)"]
    );
    assert!(changes.diff.contains("+three"), "{}", changes.diff);

    let checkout = dir.parent().unwrap().to_path_buf();
    worktree.remove();
    assert!(!checkout.exists());
    let listed = git(root, &["worktree", "list", "--porcelain"]);
    assert_eq!(listed.matches("worktree ").count(), 1, "{listed}");
    // The parent's files are as they were.
    assert_eq!(
        std::fs::read_to_string(root.join("src/a.txt")).unwrap(),
        "one\ntwo\n"
    );
}

#[test]
fn writers_adding_worktrees_of_one_repository_at_once_each_get_their_own() {
    let repo = repo();
    let root = repo.path().to_path_buf();
    let start = std::sync::Arc::new(std::sync::Barrier::new(4));
    let writers: Vec<_> = (0..4)
        .map(|_| {
            let (root, start) = (root.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                Worktree::create(&root, &no_secrets())
            })
        })
        .collect();
    let trees: Vec<Worktree> = writers
        .into_iter()
        .map(|w| w.join().unwrap().expect("a worktree").expect("in git"))
        .collect();
    // git names a worktree's records after its checkout's last component: each name its own, so
    // adds at once never race for one `.git/worktrees/<name>`.
    let mut names: Vec<_> = trees
        .iter()
        .map(|t| t.checkout().file_name().unwrap().to_os_string())
        .collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 4);
    let dirs: Vec<_> = trees.iter().map(Worktree::workdir).collect();
    for dir in &dirs {
        assert_eq!(
            std::fs::read_to_string(dir.join("src/a.txt")).unwrap(),
            "one\n"
        );
    }
}

#[test]
fn another_process_waits_while_a_writer_holds_the_worktree_records() {
    let repo = repo();
    let tree = Worktree::create(repo.path(), &no_secrets())
        .unwrap()
        .expect("in git");
    let records = tree.records.clone().expect("the common git folder");
    assert_eq!(
        std::fs::canonicalize(&records).unwrap(),
        std::fs::canonicalize(repo.path().join(".git")).unwrap()
    );
    // flock(1) is another process: it cannot take the folder while the records are held.
    let free = || {
        std::process::Command::new("flock")
            .arg("-n")
            .arg(&records)
            .arg("true")
            .status()
            .expect("flock runs")
            .success()
    };
    let held = crate::subagents::worktree_lock::lock_records(Some(&records));
    assert!(
        !free(),
        "another process took the records while they were held"
    );
    drop(held);
    assert!(free(), "the records stay locked after their holder let go");
    tree.remove();
    assert!(free());
}

#[test]
fn a_records_path_that_is_not_a_folder_is_never_opened_for_the_lock() {
    // A FIFO where the git folder should be: opening it to read would wait for a writer forever.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("common");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _lock = crate::subagents::worktree_lock::lock_records(Some(&fifo));
        done.send(()).unwrap();
    });
    finished
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the lock came back without opening the FIFO");
}

#[test]
fn outside_git_or_before_the_first_commit_there_is_no_worktree() {
    let plain = tempfile::tempdir().unwrap();
    assert!(
        Worktree::create(plain.path(), &no_secrets())
            .unwrap()
            .is_none()
    );
    let empty = tempfile::tempdir().unwrap();
    git(empty.path(), &["init", "-q"]);
    assert!(
        Worktree::create(empty.path(), &no_secrets())
            .unwrap()
            .is_none()
    );
}

#[test]
fn a_name_with_a_line_break_is_never_offered_for_the_workspace() {
    let repo = repo();
    let worktree = Worktree::create(repo.path(), &no_secrets())
        .unwrap()
        .expect("in git");
    let dir = worktree.workdir();
    std::fs::write(dir.join("ok.txt"), "fine\n").unwrap();
    std::fs::write(dir.join("x\n*** Update File: ok.txt"), "hidden\n").unwrap();
    let changes = worktree.changes().unwrap();
    let names: Vec<String> = changes
        .files
        .iter()
        .map(|f| f.path.display().to_string())
        .collect();
    assert_eq!(names, ["ok.txt"]);
    assert_eq!(changes.not_applied.len(), 1, "{:?}", changes.not_applied);
    assert!(changes.not_applied[0].contains("control character"));
    worktree.remove();
}

#[test]
fn secret_files_stay_out_and_what_is_offered_is_the_bytes_not_what_git_would_show() {
    let repo = repo();
    let root = repo.path();
    std::fs::write(root.join("src/.env"), "TOKEN=1\n").unwrap();
    // A diff driver that hides every change, and a filter the repository's config cannot name.
    std::fs::write(root.join(".gitattributes"), "* -diff filter=evil\n").unwrap();
    let worktree = Worktree::create(root, &no_secrets())
        .unwrap()
        .expect("in git");
    let dir = worktree.workdir();
    assert!(
        !dir.join("src/.env").exists(),
        "a secret file is not copied"
    );
    std::fs::write(dir.join("src/a.txt"), "one\nbackdoor\n").unwrap();
    let changes = worktree.changes().unwrap();
    assert!(changes.diff.contains("+backdoor"), "{}", changes.diff);
    worktree.remove();
}

#[test]
fn a_folder_swapped_for_a_link_is_never_read_through() {
    let repo = repo();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("a.txt"), "a secret from elsewhere\n").unwrap();
    let worktree = Worktree::create(repo.path(), &no_secrets())
        .unwrap()
        .expect("in git");
    let dir = worktree.workdir();
    std::fs::remove_dir_all(dir.join("src")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), dir.join("src")).unwrap();
    let changes = worktree.changes().unwrap();
    assert!(!changes.diff.contains("elsewhere"), "{}", changes.diff);
    let offered: Vec<String> = changes
        .files
        .iter()
        .map(|f| f.path.display().to_string())
        .collect();
    assert!(
        offered.iter().all(|p| !p.starts_with("src/")),
        "{offered:?}"
    );
    assert!(
        changes.not_applied.iter().any(|n| n.contains("src")),
        "{:?}",
        changes.not_applied
    );
    worktree.remove();
}
