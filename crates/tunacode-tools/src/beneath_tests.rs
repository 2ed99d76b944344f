//! Tests of the confined file operations: links, dangling or swapped in, never redirect them.

use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::PathBuf;

use super::*;

/// A workspace and a directory outside it.
fn setup() -> (tempfile::TempDir, tempfile::TempDir, PathBuf, PathBuf) {
    let ws = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let (root, outside) = (
        ws.path().canonicalize().unwrap(),
        out.path().canonicalize().unwrap(),
    );
    (ws, out, root, outside)
}

#[test]
fn reads_files_but_never_through_a_link() {
    let (_ws, _out, root, outside) = setup();
    std::fs::create_dir(root.join("dir")).unwrap();
    std::fs::write(root.join("dir/a.txt"), "inside").unwrap();
    std::fs::write(outside.join("secret"), "outside").unwrap();
    symlink(outside.join("secret"), root.join("leak")).unwrap();
    symlink(&outside, root.join("out")).unwrap();
    symlink("dir/a.txt", root.join("near")).unwrap();
    let b = Beneath::new(&root).unwrap();

    let mut text = String::new();
    b.open_read(Path::new("dir/a.txt"))
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, "inside");
    assert_eq!(b.read_regular(Path::new("dir/a.txt")).unwrap(), b"inside");
    for rel in ["leak", "out/secret", "near"] {
        let err = b.open_read(Path::new(rel)).unwrap_err();
        assert!(is_link_refusal(&err), "{rel}: {err}");
        let err = b
            .open_stepwise(Path::new(rel), OFlag::O_RDONLY, Mode::empty())
            .unwrap_err();
        assert!(
            is_link_refusal(&err) || err.raw_os_error() == Some(libc::ENOTDIR),
            "{rel}: {err}"
        );
    }
    assert!(b.open_read(Path::new("../x")).is_err());
    assert!(
        b.open_stepwise(Path::new("../x"), OFlag::O_RDONLY, Mode::empty())
            .is_err()
    );
    let err = b.read_regular(Path::new("dir")).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::IsADirectory);
}

#[test]
fn a_new_file_is_never_created_through_a_dangling_link() {
    let (_ws, _out, root, outside) = setup();
    symlink(outside.join("planted"), root.join("dangling")).unwrap();
    symlink(outside.join("newdir"), root.join("dangling_dir")).unwrap();
    let b = Beneath::new(&root).unwrap();

    let err = b.create_new(Path::new("dangling"), b"x").unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::AlreadyExists, "{err}");
    assert!(b.create_new(Path::new("dangling_dir/f"), b"x").is_err());
    assert!(!outside.join("planted").exists());
    assert!(!outside.join("newdir").exists());

    b.create_new(Path::new("new/deep/f.txt"), b"made").unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("new/deep/f.txt")).unwrap(),
        "made"
    );
}

#[test]
fn replaces_atomically_keeping_permissions_but_refuses_a_link() {
    let (_ws, _out, root, outside) = setup();
    let file = root.join("f.sh");
    std::fs::write(&file, "old").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o751)).unwrap();
    std::fs::write(outside.join("target"), "untouched").unwrap();
    symlink(outside.join("target"), root.join("link")).unwrap();
    symlink("f.sh", root.join("near")).unwrap();
    let inode = std::fs::metadata(&file).unwrap().ino();
    let b = Beneath::new(&root).unwrap();

    b.replace(Path::new("f.sh"), b"new").unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
    let meta = std::fs::metadata(&file).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o751);
    assert_ne!(meta.ino(), inode, "replaced by rename");

    assert!(b.replace(Path::new("link"), b"evil").is_err());
    assert!(b.replace(Path::new("near"), b"evil").is_err());
    assert_eq!(
        std::fs::read_to_string(outside.join("target")).unwrap(),
        "untouched"
    );
    assert!(
        std::fs::symlink_metadata(root.join("link"))
            .unwrap()
            .is_symlink()
    );
    let mut names: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, ["f.sh", "link", "near"], "no temporary file left");
}

#[test]
fn a_directory_swapped_for_a_link_after_the_check_fails_every_operation() {
    let (_ws, _out, root, outside) = setup();
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(root.join("sub/f"), "mine").unwrap();
    let b = Beneath::new(&root).unwrap();
    // The workspace checked `sub/f`; now the directory becomes a link out.
    std::fs::rename(root.join("sub"), root.join("moved")).unwrap();
    std::fs::write(outside.join("f"), "theirs").unwrap();
    symlink(&outside, root.join("sub")).unwrap();

    let rel = Path::new("sub/f");
    assert!(is_link_refusal(&b.open_read(rel).unwrap_err()));
    assert!(b.read_regular(rel).is_err());
    assert!(b.replace(rel, b"evil").is_err());
    assert!(b.remove(rel).is_err());
    assert!(b.create_new(Path::new("sub/new"), b"evil").is_err());
    assert_eq!(
        std::fs::read_to_string(outside.join("f")).unwrap(),
        "theirs"
    );
    assert!(!outside.join("new").exists());
}

#[test]
fn removing_a_link_removes_the_link_only() {
    let (_ws, _out, root, outside) = setup();
    std::fs::write(outside.join("keep"), "keep").unwrap();
    symlink(outside.join("keep"), root.join("link")).unwrap();
    std::fs::write(root.join("gone"), "x").unwrap();
    let b = Beneath::new(&root).unwrap();
    b.remove(Path::new("link")).unwrap();
    b.remove(Path::new("gone")).unwrap();
    assert!(outside.join("keep").exists());
    assert!(std::fs::symlink_metadata(root.join("link")).is_err());
    assert!(!root.join("gone").exists());
}

#[test]
fn without_openat2_the_walk_is_as_strict() {
    // Each test runs in a process of its own under nextest; elsewhere the fallback is as strict, so
    // tests running beside this one see the same results.
    OPENAT2.store(false, Ordering::Relaxed);
    let (_ws, _out, root, outside) = setup();
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(root.join("sub/f"), "mine").unwrap();
    std::fs::write(outside.join("f"), "theirs").unwrap();
    symlink(&outside, root.join("out")).unwrap();
    symlink("sub/f", root.join("near")).unwrap();
    let b = Beneath::new(&root).unwrap();
    assert_eq!(b.read_regular(Path::new("sub/f")).unwrap(), b"mine");
    for rel in ["out/f", "near"] {
        assert!(b.read_regular(Path::new(rel)).is_err(), "{rel}");
        assert!(b.replace(Path::new(rel), b"evil").is_err(), "{rel}");
    }
    assert!(b.create_new(Path::new("out/new"), b"evil").is_err());
    assert_eq!(
        std::fs::read_to_string(outside.join("f")).unwrap(),
        "theirs"
    );
    assert!(!outside.join("new").exists());
    OPENAT2.store(true, Ordering::Relaxed);
}
