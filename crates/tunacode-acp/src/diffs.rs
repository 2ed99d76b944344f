//! Edits as the editor shows them: ACP wants each changed file's whole old and new text, the tools
//! give a unified diff. Before a change runs (the approval) the new text is the diff applied to the
//! file; after it ran the old text is the diff applied backwards to the file. `diffy` applies them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    Content, ContentBlock, Diff, TextContent, ToolCallContent,
};
use tunacode_core::EditorFiles;

/// Which side of the change the files on disk (or in the editor) are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// The change has not run: the files hold the old text.
    Before,
    /// The change ran: the files hold the new text.
    After,
}

/// One file's section of a unified diff.
#[derive(Debug, PartialEq, Eq)]
struct FileSection<'a> {
    /// The old file (workspace-relative), `None` for a new file.
    old: Option<&'a str>,
    /// The new file, `None` for a deleted file.
    new: Option<&'a str>,
    /// The section's text, headers included.
    text: String,
}

/// A header's path: `a/x` or `b/x` → `x`, `/dev/null` → `None`.
fn header_path<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    let path = line.strip_prefix(marker)?.trim_end();
    let path = path.split('\t').next().unwrap_or(path);
    (path != "/dev/null").then(|| {
        path.strip_prefix("a/")
            .or_else(|| path.strip_prefix("b/"))
            .unwrap_or(path)
    })
}

/// Splits a (possibly multi-file) unified diff into its files' sections.
fn sections(diff: &str) -> Vec<FileSection<'_>> {
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let mut out: Vec<FileSection> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let starts = lines[i].starts_with("--- ")
            && lines.get(i + 1).is_some_and(|l| l.starts_with("+++ "))
            && lines.get(i + 2).is_some_and(|l| l.starts_with("@@"));
        if starts {
            out.push(FileSection {
                old: header_path(lines[i], "--- "),
                new: header_path(lines[i + 1], "+++ "),
                text: format!("{}{}", lines[i], lines[i + 1]),
            });
            i += 2;
            continue;
        }
        if let Some(section) = out.last_mut() {
            section.text.push_str(lines[i]);
        }
        i += 1;
    }
    out
}

/// A file's text: the editor's when there is one, else the disk's.
async fn read(path: &Path, files: Option<&Arc<dyn EditorFiles>>) -> Option<String> {
    match files {
        Some(files) => files.read_text(path).await.ok(),
        None => tokio::fs::read_to_string(path).await.ok(),
    }
}

/// The tool-call content for `diff`: one `diff` item per file, or the diff as text when a file's texts
/// cannot be rebuilt (it changed since).
pub(crate) async fn diff_content(
    diff: &str,
    side: Side,
    root: &Path,
    files: Option<&Arc<dyn EditorFiles>>,
) -> Vec<ToolCallContent> {
    let mut out = Vec::new();
    for section in sections(diff) {
        match file_diff(&section, side, root, files).await {
            Some(item) => out.push(ToolCallContent::Diff(item)),
            None => out.push(text_content(format!("```diff\n{}```", section.text))),
        }
    }
    out
}

/// One file's old and new text around the change.
async fn file_diff(
    section: &FileSection<'_>,
    side: Side,
    root: &Path,
    files: Option<&Arc<dyn EditorFiles>>,
) -> Option<Diff> {
    let patch = diffy::Patch::from_str(&section.text).ok()?;
    let path: PathBuf = root.join(section.new.or(section.old)?);
    let (old, new) = match side {
        Side::Before => {
            let old = match section.old {
                Some(p) => Some(read(&root.join(p), files).await?),
                None => None,
            };
            let new = diffy::apply(old.as_deref().unwrap_or(""), &patch).ok()?;
            (old, new)
        }
        Side::After => {
            let new = match section.new {
                Some(p) => read(&root.join(p), files).await?,
                None => String::new(),
            };
            let old = diffy::apply(&new, &patch.reverse()).ok()?;
            (section.old.map(|_| old), new)
        }
    };
    Some(Diff::new(path, new).old_text(old))
}

/// A text item of tool-call content.
pub(crate) fn text_content(text: String) -> ToolCallContent {
    ToolCallContent::Content(Content::new(ContentBlock::Text(TextContent::new(text))))
}

#[cfg(test)]
mod tests {
    use super::*;

    const EDIT: &str = "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n";
    const CREATE: &str = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+fresh\n";

    fn diff_of(item: &ToolCallContent) -> &Diff {
        match item {
            ToolCallContent::Diff(d) => d,
            other => panic!("not a diff: {other:?}"),
        }
    }

    #[test]
    fn a_multi_file_diff_splits_by_file() {
        let both = format!("{EDIT}{CREATE}");
        let parts = sections(&both);
        assert_eq!(parts.len(), 2);
        assert_eq!(
            (parts[0].old, parts[0].new),
            (Some("src/a.txt"), Some("src/a.txt"))
        );
        assert_eq!((parts[1].old, parts[1].new), (None, Some("new.txt")));
        assert!(parts[0].text.ends_with("+TWO\n"));
    }

    #[tokio::test]
    async fn before_a_change_the_new_text_is_built_and_after_it_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let file = dir.path().join("src/a.txt");
        std::fs::write(&file, "one\ntwo\n").unwrap();

        let before = diff_content(EDIT, Side::Before, dir.path(), None).await;
        let d = diff_of(&before[0]);
        assert_eq!(d.path, file);
        assert_eq!(d.old_text.as_deref(), Some("one\ntwo\n"));
        assert_eq!(d.new_text, "one\nTWO\n");

        std::fs::write(&file, "one\nTWO\n").unwrap();
        std::fs::write(dir.path().join("new.txt"), "fresh\n").unwrap();
        let after = diff_content(&format!("{EDIT}{CREATE}"), Side::After, dir.path(), None).await;
        assert_eq!(diff_of(&after[0]).old_text.as_deref(), Some("one\ntwo\n"));
        assert_eq!(
            diff_of(&after[1]).old_text,
            None,
            "a created file has no old text"
        );
        assert_eq!(diff_of(&after[1]).new_text, "fresh\n");
    }

    #[tokio::test]
    async fn a_file_that_changed_since_falls_back_to_the_diff_text() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.txt"), "something else\n").unwrap();
        let content = diff_content(EDIT, Side::After, dir.path(), None).await;
        assert!(matches!(&content[0], ToolCallContent::Content(_)));
    }
}
