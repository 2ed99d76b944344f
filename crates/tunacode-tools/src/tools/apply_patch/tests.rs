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
