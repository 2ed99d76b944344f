//! `apply_patch` on real files: several operations at once, and all-or-nothing.

use serde_json::json;

use super::*;
use crate::testutil::{args, ctx};

const PATCH: &str = "*** Begin Patch
*** Add File: src/new/mod.rs
+pub fn added() {}
*** Update File: src/lib.rs
@@ fn one() {
-    1
+    10
@@
 fn two() {
-    2
+    20
 }
*** Delete File: old.txt
*** End Patch";

fn seed(dir: &std::path::Path) {
    std::fs::create_dir_all(dir.join("src")).expect("dir");
    std::fs::write(
        dir.join("src/lib.rs"),
        "fn one() {\n    1\n}\nfn two() {\n    2\n}\n",
    )
    .expect("w");
    std::fs::write(dir.join("old.txt"), "bye\n").expect("w");
}

#[tokio::test]
async fn adds_updates_with_two_hunks_and_deletes_in_one_call() {
    let dir = tempfile::tempdir().expect("dir");
    seed(dir.path());
    let c = ctx(dir.path());
    let preview = ApplyPatch
        .preview(&args(json!({"input": PATCH})), &c)
        .await
        .expect("ok");
    assert!(preview.expect("a diff").contains("+    20"));
    let out = ApplyPatch
        .call(args(json!({"input": PATCH})), &c)
        .await
        .expect("applies");
    assert_eq!(
        out.content,
        "Applied the patch:\nA src/new/mod.rs\nM src/lib.rs\nD old.txt"
    );
    let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).ok();
    assert_eq!(
        read("src/new/mod.rs").as_deref(),
        Some("pub fn added() {}\n")
    );
    assert_eq!(
        read("src/lib.rs").as_deref(),
        Some("fn one() {\n    10\n}\nfn two() {\n    20\n}\n")
    );
    assert_eq!(read("old.txt"), None);
}

#[tokio::test]
async fn one_bad_hunk_changes_nothing_and_says_where() {
    let dir = tempfile::tempdir().expect("dir");
    seed(dir.path());
    let bad = PATCH.replace(" fn two() {\n-    2", " fn three() {\n-    2");
    let err = ApplyPatch
        .call(args(json!({"input": bad})), &ctx(dir.path()))
        .await
        .expect_err("fails");
    let ToolError::Retry(message) = err else {
        panic!("a retry: {err:?}")
    };
    assert!(
        message.contains("in `src/lib.rs`, the hunk whose first line is `fn three() {`"),
        "{message}"
    );
    assert!(
        !dir.path().join("src/new/mod.rs").exists(),
        "the add was not written"
    );
    assert!(
        dir.path().join("old.txt").exists(),
        "the delete was not done"
    );
    assert!(
        std::fs::read_to_string(dir.path().join("src/lib.rs"))
            .expect("r")
            .contains("    1\n")
    );
}

#[tokio::test]
async fn moves_refusals_and_malformed_patches() {
    let dir = tempfile::tempdir().expect("dir");
    seed(dir.path());
    let c = ctx(dir.path());
    let mv = "*** Begin Patch\n*** Update File: old.txt\n*** Move to: moved/new.txt\n@@\n-bye\n+hello\n*** End Patch";
    let out = ApplyPatch
        .call(args(json!({"input": mv})), &c)
        .await
        .expect("moves");
    assert_eq!(
        out.content,
        "Applied the patch:\nR old.txt -> moved/new.txt"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("moved/new.txt")).expect("r"),
        "hello\n"
    );
    assert!(!dir.path().join("old.txt").exists());
    for (patch, says) in [
        (
            "*** Begin Patch\n*** Add File: src/lib.rs\n+x\n*** End Patch",
            "already exists",
        ),
        (
            "*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch",
            "does not exist",
        ),
        (
            "*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch",
            "outside",
        ),
        ("no patch here", "*** Begin Patch"),
        (
            "*** Begin Patch\n*** Frobnicate: x\n*** End Patch",
            "expected `*** Add File:`",
        ),
    ] {
        let err = ApplyPatch
            .call(args(json!({"input": patch})), &c)
            .await
            .expect_err(patch);
        assert!(err.to_string().contains(says), "{patch}: {err}");
    }
}

/// A workspace seeded like the others, a directory outside it, and a link in the workspace to a
/// file there that does not exist yet (a cloned repository can ship one).
fn with_dangling_link() -> (tempfile::TempDir, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("dir");
    let outside = tempfile::tempdir().expect("outside");
    seed(dir.path());
    std::os::unix::fs::symlink(outside.path().join("x"), dir.path().join("dangling"))
        .expect("link");
    (dir, outside)
}

async fn refused(dir: &std::path::Path, patch: &str) -> String {
    ApplyPatch
        .call(args(json!({"input": patch})), &ctx(dir))
        .await
        .expect_err(patch)
        .to_string()
}

#[tokio::test]
async fn adding_or_moving_onto_a_dangling_link_writes_nothing_outside() {
    let (dir, outside) = with_dangling_link();
    let add = "*** Begin Patch\n*** Add File: dangling\n+planted\n*** End Patch";
    let err = refused(dir.path(), add).await;
    assert!(err.contains("outside the workspace"), "{err}");
    let mv = "*** Begin Patch\n*** Update File: old.txt\n*** Move to: dangling\n@@\n-bye\n+planted\n*** End Patch";
    let err = refused(dir.path(), mv).await;
    assert!(err.contains("outside the workspace"), "{err}");
    // A link inside that leads nowhere yet is refused as a link.
    std::os::unix::fs::symlink("later.txt", dir.path().join("near")).expect("link");
    let err = refused(dir.path(), &add.replace("dangling", "near")).await;
    assert!(err.contains("is a symbolic link"), "{err}");
    assert_eq!(
        std::fs::read_dir(outside.path()).expect("ls").count(),
        0,
        "nothing outside"
    );
    assert!(!dir.path().join("later.txt").exists());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("old.txt")).expect("r"),
        "bye\n"
    );
}

#[tokio::test]
async fn links_are_neither_updated_nor_deleted_through() {
    let (dir, outside) = with_dangling_link();
    std::fs::write(outside.path().join("t.txt"), "bye\n").expect("w");
    std::os::unix::fs::symlink(outside.path().join("t.txt"), dir.path().join("out.txt"))
        .expect("link");
    std::os::unix::fs::symlink("old.txt", dir.path().join("near.txt")).expect("link");
    for (patch, says) in [
        (
            "*** Begin Patch\n*** Update File: out.txt\n@@\n-bye\n+evil\n*** End Patch",
            "outside the workspace",
        ),
        (
            "*** Begin Patch\n*** Delete File: out.txt\n*** End Patch",
            "outside the workspace",
        ),
        (
            "*** Begin Patch\n*** Update File: near.txt\n@@\n-bye\n+evil\n*** End Patch",
            "is a symbolic link (to `old.txt`)",
        ),
    ] {
        let err = refused(dir.path(), patch).await;
        assert!(err.contains(says), "{patch}: {err}");
    }
    assert_eq!(
        std::fs::read_to_string(outside.path().join("t.txt")).expect("r"),
        "bye\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("old.txt")).expect("r"),
        "bye\n"
    );
}

#[tokio::test]
async fn a_path_touched_twice_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().expect("dir");
    seed(dir.path());
    let add_and_move = "*** Begin Patch\n*** Add File: a.txt\n+first\n*** Update File: old.txt\n*** Move to: a.txt\n@@\n-bye\n+second\n*** End Patch";
    let err = refused(dir.path(), add_and_move).await;
    assert!(
        err.contains("`a.txt` is touched twice in the patch (added, then the target of a move)"),
        "{err}"
    );
    let update_and_delete = "*** Begin Patch\n*** Update File: old.txt\n@@\n-bye\n+hi\n*** Delete File: ./src/../old.txt\n*** End Patch";
    let err = refused(dir.path(), update_and_delete).await;
    assert!(err.contains("touched twice"), "{err}");
    let two_moves = "*** Begin Patch\n*** Update File: old.txt\n*** Move to: b.txt\n@@\n-bye\n+hi\n*** Update File: src/lib.rs\n*** Move to: b.txt\n@@\n-    1\n+    2\n*** End Patch";
    let err = refused(dir.path(), two_moves).await;
    assert!(err.contains("touched twice"), "{err}");
    assert!(!dir.path().join("a.txt").exists());
    assert!(!dir.path().join("b.txt").exists());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("old.txt")).expect("r"),
        "bye\n"
    );
}

#[tokio::test]
async fn secrets_are_refused_and_every_path_is_a_target() {
    let dir = tempfile::tempdir().expect("dir");
    seed(dir.path());
    std::fs::write(dir.path().join(".env"), "KEY=secret-value\n").expect("w");
    let err = refused(
        dir.path(),
        "*** Begin Patch\n*** Update File: .env\n@@\n-KEY=secret-value\n+KEY=x\n*** End Patch",
    )
    .await;
    assert!(
        err.contains("secrets file") && !err.contains("secret-value"),
        "{err}"
    );
    let err = refused(
        dir.path(),
        "*** Begin Patch\n*** Update File: old.txt\n*** Move to: .env.local\n@@\n-bye\n+x\n*** End Patch",
    )
    .await;
    assert!(err.contains("secrets file"), "{err}");

    let c = ctx(dir.path());
    let root = c.workspace.root();
    let patch = "*** Begin Patch\n*** Add File: .git/hooks/post-checkout\n+x\n*** Update File: old.txt\n*** Move to: sub/../.mcp.json\n@@\n-bye\n+x\n*** Delete File: gone.txt\n*** End Patch";
    assert_eq!(
        ApplyPatch.target_paths(&args(json!({"input": patch})), &c.workspace),
        vec![
            root.join(".git/hooks/post-checkout"),
            root.join("old.txt"),
            root.join(".mcp.json"),
            root.join("gone.txt"),
        ]
    );
    assert!(
        ApplyPatch
            .target_paths(&args(json!({"input": "garbage"})), &c.workspace)
            .is_empty()
    );
}
