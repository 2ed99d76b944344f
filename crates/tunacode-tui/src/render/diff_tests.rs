//! Tests of diff rendering.

use pretty_assertions::assert_eq;

use super::wrap::line_width;
use super::{diff_stats, lines_to_text, render_diff};
use crate::theme::Theme;

const MODIFY: &str = "--- a/src/lib.rs
+++ b/src/lib.rs
@@ -8,6 +8,7 @@
 fn main() {
     let a = 1;
-    let b = 2;
+    let b = 3;
+    let c = 4;
     println!(\"{a}\");

 }
@@ -98,3 +99,3 @@ impl Foo {
 // keep
--- a removed line that looks like a header
+++ an added line that looks like a header
 // end
";

const NEW_FILE: &str = "--- /dev/null
+++ b/notes.md
@@ -0,0 +1,3 @@
+# Notes
+
+\tdone
\\ No newline at end of file
";

#[test]
fn modification_hunks_have_a_numbered_gutter() {
    let theme = Theme::dark();
    let lines = render_diff(MODIFY, &theme, 80);
    insta::assert_snapshot!(lines_to_text(&lines), @r#"
    --- a/src/lib.rs
    +++ b/src/lib.rs
    @@ -8,6 +8,7 @@
      8   8 │ fn main() {
      9   9 │     let a = 1;
     10     │-    let b = 2;
         10 │+    let b = 3;
         11 │+    let c = 4;
     11  12 │     println!("{a}");
     12  13 │
     13  14 │ }
    @@ -98,3 +99,3 @@ impl Foo {
     98  99 │ // keep
     99     │--- a removed line that looks like a header
        100 │+++ an added line that looks like a header
    100 101 │ // end
    "#);
    assert_eq!(lines[0].spans[0].style, theme.diff_header);
    assert_eq!(lines[1].spans[0].style, theme.diff_header);
    assert_eq!(lines[2].spans[0].style, theme.diff_hunk);
    let added = &lines[6];
    assert_eq!(added.spans[0].content, "     10 │");
    assert_eq!(added.spans[0].style, theme.muted);
    assert_eq!(
        (added.spans[1].content.as_ref(), added.spans[1].style),
        ("+    let b = 3;", theme.diff_add)
    );
    let removed = &lines[5];
    assert_eq!(removed.spans[0].content, " 10     │");
    assert_eq!(removed.spans[1].style, theme.diff_remove);
    assert_eq!(lines[3].spans[1].style, theme.text);
    // Lines that look like headers inside a hunk stay changes.
    assert_eq!(lines[13].spans[1].style, theme.diff_remove);
    assert_eq!(lines[14].spans[1].style, theme.diff_add);
    assert_eq!(diff_stats(MODIFY), (3, 2));
}

#[test]
fn new_files_number_only_the_new_side() {
    let theme = Theme::dark();
    let lines = render_diff(NEW_FILE, &theme, 80);
    insta::assert_snapshot!(lines_to_text(&lines), @r"
    --- /dev/null
    +++ b/notes.md
    @@ -0,0 +1,3 @@
      1 │+# Notes
      2 │+
      3 │+    done
    \ No newline at end of file
    ");
    assert!(
        lines[3..6]
            .iter()
            .all(|l| l.spans[1].style == theme.diff_add)
    );
    assert_eq!(lines[6].spans[0].style, theme.muted);
    assert_eq!(diff_stats(NEW_FILE), (3, 0));
}

#[test]
fn long_lines_are_cut_to_the_width() {
    let diff = format!(
        "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-{}\n+short\n",
        "word ".repeat(30)
    );
    let lines = render_diff(&diff, &Theme::plain(), 30);
    assert!(lines.iter().all(|l| line_width(l) <= 30));
    assert_eq!(lines[3].to_string(), "1   │-word word word word wor…");
    assert_eq!(lines[4].to_string(), "  1 │+short");
}

#[test]
fn odd_input_does_not_panic() {
    for diff in [
        "",
        "\n",
        "@@ garbage @@\n+x",
        "+++ only\n",
        "@@ -1,2 +1 @@\n-a\n",
        "no diff at all\n-x",
        "@@ -18446744073709551615 +1 @@\n x",
    ] {
        let lines = render_diff(diff, &Theme::dark(), 10);
        assert!(lines.iter().all(|l| line_width(l) <= 10), "{diff:?}");
        let _ = diff_stats(diff);
    }
    assert_eq!(
        lines_to_text(&render_diff("plain text", &Theme::dark(), 80)),
        "plain text"
    );
}
