//! The file tools written in part: only the hunks the user accepted (or rewrote) reach the disk, and
//! a file changed since the review is refused with nothing written.

use serde_json::json;
use tunacode_protocol::{EditedHunk, HunkSelection, diff_hunks};

use super::apply_patch::ApplyPatch;
use super::update_file::UpdateFile;
use super::write_file::WriteFile;
use crate::testutil::{args, ctx};
use crate::tool::Tool;
use crate::tool_error::ToolError;

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

fn accepting(accepted: Vec<usize>) -> HunkSelection {
    HunkSelection {
        accepted,
        ..HunkSelection::default()
    }
}

#[tokio::test]
async fn update_file_writes_only_the_accepted_hunks_and_reports_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let old = numbered(30);
    std::fs::write(dir.path().join("f.txt"), &old).unwrap();
    let ctx = ctx(dir.path());
    let a = args(json!({
        "file_path": "f.txt",
        "target": "line 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\nline 11\nline 12\nline 13\nline 14\nline 15\nline 16\nline 17\nline 18\nline 19\nline 20\n",
        "replacement": "line two\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\nline 11\nline 12\nline 13\nline 14\nline 15\nline 16\nline 17\nline 18\nline 19\nline twenty\n",
    }));
    let preview = UpdateFile.preview(&a, &ctx).await.unwrap().unwrap();
    assert_eq!(diff_hunks(&preview).len(), 2);
    let out = UpdateFile
        .call_picked(a, &ctx, &preview, &accepting(vec![1]))
        .await
        .unwrap();
    let now = std::fs::read_to_string(dir.path().join("f.txt")).unwrap();
    assert_eq!(now, old.replace("line 20\n", "line twenty\n"));
    let written = out.diff.unwrap();
    assert!(
        written.contains("+line twenty") && !written.contains("+line two"),
        "{written}"
    );
}

#[tokio::test]
async fn a_file_changed_since_the_review_is_refused_with_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), numbered(5)).unwrap();
    let ctx = ctx(dir.path());
    let a =
        args(json!({"file_path": "f.txt", "target": "line 3\n", "replacement": "line three\n"}));
    let preview = UpdateFile.preview(&a, &ctx).await.unwrap().unwrap();
    std::fs::write(
        dir.path().join("f.txt"),
        numbered(5).replace("line 1\n", "first\n"),
    )
    .unwrap();
    let refused = UpdateFile
        .call_picked(a, &ctx, &preview, &accepting(vec![0]))
        .await;
    assert!(
        matches!(refused, Err(ToolError::Retry(m)) if m.contains("changed while the user reviewed"))
    );
    let now = std::fs::read_to_string(dir.path().join("f.txt")).unwrap();
    assert!(now.contains("line 3\n"));
}

#[tokio::test]
async fn write_file_writes_the_users_rewrite_of_its_one_hunk() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ctx(dir.path());
    let a = args(json!({"file_path": "new.txt", "content": "draft\n"}));
    let preview = WriteFile.preview(&a, &ctx).await.unwrap().unwrap();
    let pick = HunkSelection {
        accepted: vec![],
        edited: vec![EditedHunk {
            index: 0,
            text: "final\n".into(),
        }],
        note: None,
    };
    WriteFile
        .call_picked(a, &ctx, &preview, &pick)
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("new.txt")).unwrap(),
        "final\n"
    );
}

#[tokio::test]
async fn apply_patch_numbers_hunks_across_files_and_leaves_a_file_with_none_kept() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), numbered(3)).unwrap();
    std::fs::write(dir.path().join("b.txt"), numbered(3)).unwrap();
    let ctx = ctx(dir.path());
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n line 1\n-line 2\n+line TWO\n line 3\n*** Update File: b.txt\n@@\n line 1\n-line 2\n+line deux\n line 3\n*** Add File: c.txt\n+new file\n*** End Patch\n";
    let a = args(json!({ "input": patch }));
    let preview = ApplyPatch.preview(&a, &ctx).await.unwrap().unwrap();
    assert_eq!(diff_hunks(&preview).len(), 3);
    let out = ApplyPatch
        .call_picked(a, &ctx, &preview, &accepting(vec![1, 2]))
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        numbered(3)
    );
    assert!(
        std::fs::read_to_string(dir.path().join("b.txt"))
            .unwrap()
            .contains("line deux")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("c.txt")).unwrap(),
        "new file\n"
    );
    assert!(!out.content.contains("a.txt"), "{}", out.content);
}

#[tokio::test]
async fn a_split_the_review_cannot_see_is_refused_with_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    // A lone carriage return: the diff library ends a line there, the review does not, so two
    // hunks would read as one and the numbers would shift.
    let old = format!("a\nb\rc\n{}", numbered(30));
    std::fs::write(dir.path().join("f.txt"), &old).unwrap();
    let ctx = ctx(dir.path());
    let new = old
        .replacen("a\n", "A\n", 1)
        .replace("line 25\n", "line XXV\n");
    let a = args(json!({"file_path": "f.txt", "target": old, "replacement": new}));
    let preview = UpdateFile.preview(&a, &ctx).await.unwrap().unwrap();
    let refused = UpdateFile
        .call_picked(a, &ctx, &preview, &accepting(vec![0]))
        .await;
    assert!(
        matches!(&refused, Err(ToolError::Retry(m)) if m.contains("cannot be written in part")),
        "{refused:?}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        old
    );
}

#[tokio::test]
async fn a_patch_change_without_hunks_is_shown_and_never_written_in_part() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("keep.txt"), "x\n").unwrap();
    std::fs::write(dir.path().join("a.txt"), numbered(3)).unwrap();
    let ctx = ctx(dir.path());
    std::fs::write(dir.path().join("empty.txt"), "").unwrap();
    let patch = "*** Begin Patch\n*** Delete File: empty.txt\n*** Update File: a.txt\n@@\n line 1\n-line 2\n+line TWO\n line 3\n*** End Patch\n";
    let a = args(json!({ "input": patch }));
    let preview = ApplyPatch.preview(&a, &ctx).await.unwrap().unwrap();
    assert!(
        preview.contains("--- a/empty.txt\n+++ /dev/null\n"),
        "{preview}"
    );
    assert_eq!(diff_hunks(&preview).len(), 1);
    ApplyPatch
        .call_picked(a, &ctx, &preview, &accepting(vec![0]))
        .await
        .unwrap();
    assert!(
        dir.path().join("empty.txt").exists(),
        "the unreviewable delete was not made"
    );
    assert!(
        std::fs::read_to_string(dir.path().join("a.txt"))
            .unwrap()
            .contains("line TWO")
    );
}
