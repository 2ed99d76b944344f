use super::*;

const TWO_FILES: &str = "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,3 +1,3 @@\n fn a() {\n-    1\n+    2\n }\n@@ -10,2 +10,3 @@\n x\n+--- not a header\n y\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n";

#[test]
fn a_multi_file_diff_splits_into_numbered_hunks_with_their_files() {
    let hunks = diff_hunks(TWO_FILES);
    assert_eq!(hunks.len(), 3);
    assert_eq!(hunks[0].file, "src/a.rs");
    assert_eq!(
        hunks[0].text,
        "@@ -1,3 +1,3 @@\n fn a() {\n-    1\n+    2\n }\n"
    );
    // A `+--- …` line inside a hunk is content, not the next file's header.
    assert_eq!(
        hunks[1].text,
        "@@ -10,2 +10,3 @@\n x\n+--- not a header\n y\n"
    );
    assert_eq!(hunks[1].file_header, "--- a/src/a.rs\n+++ b/src/a.rs\n");
    assert_eq!(hunks[2].file, "new.txt");
    assert_eq!(
        hunks[2].as_diff(),
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n"
    );
    assert!(diff_hunks("").is_empty());
    assert!(diff_hunks("just text\n").is_empty());
}

#[test]
fn a_deleted_files_hunk_names_the_file_it_deletes() {
    let hunks = diff_hunks("--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n");
    assert_eq!(hunks[0].file, "old.txt");
}

#[test]
fn a_selection_says_how_each_hunk_is_written_and_which_index_is_out_of_range() {
    let sel = HunkSelection {
        accepted: vec![0, 2],
        edited: vec![EditedHunk {
            index: 2,
            text: "mine\n".into(),
        }],
        note: None,
    };
    assert_eq!(sel.verdict(0), HunkVerdict::Accepted);
    assert_eq!(sel.verdict(1), HunkVerdict::Rejected);
    assert_eq!(sel.verdict(2), HunkVerdict::Edited("mine\n"));
    assert_eq!(sel.out_of_range(3), None);
    assert_eq!(sel.out_of_range(2), Some(2));
    assert!(!sel.writes_nothing());
    assert!(HunkSelection::default().writes_nothing());
}

#[test]
fn an_edited_hunk_gives_its_new_side_and_must_keep_its_old_side() {
    let hunk = &diff_hunks(TWO_FILES)[0];
    let edited = "@@ -1,3 +1,3 @@\n# a comment\n fn a() {\n-    1\n+    42\n+    // why\n }\n";
    assert_eq!(
        edited_hunk_text(hunk, edited).unwrap(),
        "fn a() {\n    42\n    // why\n}\n"
    );
    // Keeping a removed line (turning `-` into ` `) is allowed, as in `git add -p`.
    let kept = " fn a() {\n     1\n+    2\n }\n";
    assert_eq!(
        edited_hunk_text(hunk, kept).unwrap(),
        "fn a() {\n    1\n    2\n}\n"
    );
    // Shown with its file's header, the header is not part of the hunk.
    let with_header = hunk.as_diff().replace("+    2", "+    3");
    assert_eq!(
        edited_hunk_text(hunk, &with_header).unwrap(),
        "fn a() {\n    3\n}\n"
    );
    let changed_context = " fn b() {\n-    1\n+    2\n }\n";
    assert!(edited_hunk_text(hunk, changed_context).is_err());
}
