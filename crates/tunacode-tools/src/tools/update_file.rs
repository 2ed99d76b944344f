//! `update_file`: replaces one exact, unique snippet of an existing file, atomically.

use std::path::PathBuf;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tunacode_protocol::HunkSelection;

use crate::args::{parse, path_arg};
use crate::beneath::Beneath;
use crate::diff::{apply_picked, as_reviewed, line_counts, unified_diff};
use crate::fsutil::{blocking, io_error};
use crate::schema::schema_for;
use crate::tool::{Tool, ToolContext, ToolKind, ToolOutput};
use crate::tool_error::ToolError;
use crate::workspace::{Located, Workspace};
use std::sync::LazyLock;

const NAME: &str = "update_file";

/// Replaces the one occurrence of `target` in a file with `replacement`, writing atomically.
#[derive(Debug, Clone, Copy, Default)]
pub struct UpdateFile;

#[derive(Deserialize, JsonSchema)]
struct Args {
    file_path: String,
    /// The exact text to replace.
    target: String,
    /// Its replacement (empty deletes it).
    replacement: String,
}

/// A checked call: where to write what, and the diff.
struct Plan {
    at: Located,
    shown: String,
    old: String,
    new: String,
    diff: String,
}

async fn plan(args: &Map<String, Value>, ctx: &ToolContext) -> Result<Plan, ToolError> {
    let args: Args = parse(NAME, args)?;
    if args.target.is_empty() {
        return Err(ToolError::Retry(
            "invalid arguments for update_file: `target` is empty; give the exact text to replace \
             (to create a file use write_file)"
                .into(),
        ));
    }
    let (workspace, file_path) = (ctx.workspace.clone(), args.file_path.clone());
    let at = blocking(move || {
        let at = workspace.locate(&file_path)?;
        workspace.refuse_change(&at)?;
        if std::fs::metadata(&at.real).is_ok_and(|m| m.is_dir()) {
            let shown = workspace.display(&at.real);
            return Err(ToolError::Retry(format!("`{shown}` is a directory")));
        }
        Ok(at)
    })
    .await?;
    let shown = ctx.workspace.display(&at.real);
    let old = read_text(&ctx.workspace, &at, &shown).await?;
    let new = replace_once(&old, &args.target, &args.replacement, &shown)?;
    if new == old {
        return Err(ToolError::Retry(
            "`target` and `replacement` are identical; nothing would change".into(),
        ));
    }
    let diff = unified_diff(&old, &new, &format!("a/{shown}"), &format!("b/{shown}"));
    Ok(Plan {
        at,
        shown,
        old,
        new,
        diff,
    })
}

/// The text of the file `at` leads to: through the editor when there is one, else from the disk,
/// opened beneath the workspace root with no link followed. Not UTF-8 text is an error the model can
/// act on.
async fn read_text(workspace: &Workspace, at: &Located, shown: &str) -> Result<String, ToolError> {
    if let Some(editor) = workspace.editor() {
        return editor
            .read_text(&at.real)
            .await
            .map_err(|e| io_error(shown, e));
    }
    let (root, rel, name) = (
        workspace.root().to_path_buf(),
        workspace.relative(at).to_path_buf(),
        shown.to_string(),
    );
    let bytes = blocking(move || {
        Beneath::new(&root)
            .and_then(|b| b.read_regular(&rel))
            .map_err(|e| io_error(&name, e))
    })
    .await?;
    String::from_utf8(bytes).map_err(|_| {
        ToolError::Retry(format!(
            "`{shown}` is not UTF-8 text; only text files can be edited"
        ))
    })
}

/// Writes the planned text: through the editor, or atomically beneath the workspace root, where a
/// link swapped in since the plan makes the write fail.
async fn write(plan: &Plan, workspace: &Workspace) -> Result<(), ToolError> {
    if let Some(editor) = workspace.editor() {
        return editor
            .write_text(&plan.at.real, &plan.new)
            .await
            .map_err(|e| io_error(&plan.shown, e));
    }
    let root = workspace.root().to_path_buf();
    let rel = workspace.relative(&plan.at).to_path_buf();
    let (bytes, shown) = (plan.new.clone().into_bytes(), plan.shown.clone());
    blocking(move || {
        Beneath::new(&root)
            .and_then(|b| b.replace(&rel, &bytes))
            .map_err(|e| io_error(&shown, e))
    })
    .await
}

/// Writes the plan and says what changed (the diff of what was written).
async fn finish(plan: Plan, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    if ctx.cancel.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    write(&plan, &ctx.workspace).await?;
    let (added, removed) = line_counts(&plan.old, &plan.new);
    Ok(ToolOutput {
        content: format!(
            "Updated `{}` (+{added} -{removed} lines).\n{}",
            plan.shown, plan.diff
        ),
        diff: Some(plan.diff),
        images: Vec::new(),
    })
}

/// `text` with its only occurrence of `target` replaced, or a retry explaining why there is not exactly one.
fn replace_once(
    text: &str,
    target: &str,
    replacement: &str,
    shown: &str,
) -> Result<String, ToolError> {
    let positions = occurrences(text, target);
    match positions.as_slice() {
        [at] => {
            let mut out = String::with_capacity(text.len() + replacement.len());
            out.push_str(&text[..*at]);
            out.push_str(replacement);
            out.push_str(&text[at + target.len()..]);
            Ok(out)
        }
        [] if whitespace_insensitive_match(text, target) => Err(ToolError::Retry(format!(
            "`target` was not found in `{shown}`, but it matches when whitespace is ignored: the \
             indentation or whitespace differs. Read the file again and copy the text exactly."
        ))),
        [] => Err(ToolError::Retry(format!(
            "`target` was not found in `{shown}`; it must match the file's text exactly. Read the file \
             again and copy the text to replace."
        ))),
        many => Err(ToolError::Retry(format!(
            "`target` matches {} places in `{shown}`; it must match exactly once. Include more \
             surrounding lines to make it unique.",
            many.len()
        ))),
    }
}

/// Byte offsets of every occurrence of `needle`, overlapping ones included.
fn occurrences(hay: &str, needle: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(i) = hay[from..].find(needle) {
        let at = from + i;
        found.push(at);
        let step = hay[at..].chars().next().map_or(1, char::len_utf8);
        from = at + step;
    }
    found
}

/// Whether `target` occurs in `text` once runs of whitespace are collapsed in both.
fn whitespace_insensitive_match(text: &str, target: &str) -> bool {
    let collapse = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let target = collapse(target);
    !target.is_empty() && collapse(text).contains(&target)
}

#[async_trait]
impl Tool for UpdateFile {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        "Replace one snippet of an existing file. `target` must match its current text exactly once, \
         whitespace included (copy it from read_file without the line-number prefix; add surrounding \
         lines to make it unique). Read the file first."
    }

    fn parameters(&self) -> Value {
        // Derived once: the schema is offered to the model on every call.
        static SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<Args>);
        SCHEMA.clone()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    fn target_paths(&self, args: &Map<String, Value>, workspace: &Workspace) -> Vec<PathBuf> {
        path_arg(args, "file_path", workspace)
    }

    async fn call(
        &self,
        args: Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let plan = plan(&args, ctx).await?;
        finish(plan, ctx).await
    }

    fn picks_hunks(&self) -> bool {
        true
    }

    async fn call_picked(
        &self,
        args: Map<String, Value>,
        ctx: &ToolContext,
        reviewed: &str,
        pick: &HunkSelection,
    ) -> Result<ToolOutput, ToolError> {
        let mut plan = plan(&args, ctx).await?;
        as_reviewed(&plan.diff, &[(&plan.old, &plan.new)], reviewed)?;
        plan.new = apply_picked(&plan.old, &plan.new, 0, pick);
        plan.diff = unified_diff(
            &plan.old,
            &plan.new,
            &format!("a/{}", plan.shown),
            &format!("b/{}", plan.shown),
        );
        finish(plan, ctx).await
    }

    async fn preview(
        &self,
        args: &Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<Option<String>, ToolError> {
        Ok(Some(plan(args, ctx).await?.diff))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{args, ctx};
    use serde_json::json;
    use std::os::unix::fs::PermissionsExt;

    const SOURCE: &str = "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n";

    fn setup(text: &str) -> (tempfile::TempDir, ToolContext) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("main.rs"), text).unwrap();
        let ctx = ctx(dir.path());
        (dir, ctx)
    }

    fn edit(target: &str, replacement: &str) -> Map<String, Value> {
        args(json!({"file_path": "main.rs", "target": target, "replacement": replacement}))
    }

    #[tokio::test]
    async fn replaces_the_unique_match_and_returns_the_diff() {
        let (dir, ctx) = setup(SOURCE);
        let a = edit("let x = 1;", "let x = 2;");
        let preview = UpdateFile.preview(&a, &ctx).await.unwrap().unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("main.rs")).unwrap(),
            SOURCE
        );
        let out = UpdateFile.call(a, &ctx).await.unwrap();
        let after = std::fs::read_to_string(dir.path().join("main.rs")).unwrap();
        assert_eq!(after, SOURCE.replace("x = 1", "x = 2"));
        let diff = out.diff.clone().unwrap();
        assert_eq!(diff, preview);
        assert_eq!(
            diff,
            "--- a/main.rs\n+++ b/main.rs\n@@ -1,4 +1,4 @@\n fn main() {\n-    let x = 1;\n+    let x = 2;\n     println!(\"{x}\");\n }\n"
        );
        assert_eq!(
            out.content,
            format!("Updated `main.rs` (+1 -1 lines).\n{diff}")
        );
    }

    #[tokio::test]
    async fn no_match_is_a_retry_that_mentions_whitespace_when_relevant() {
        let (dir, ctx) = setup(SOURCE);
        let err = UpdateFile
            .call(edit("let y = 1;", "z"), &ctx)
            .await
            .unwrap_err();
        assert!(
            matches!(&err, ToolError::Retry(m) if m.contains("not found") && !m.contains("whitespace is ignored"))
        );
        let err = UpdateFile
            .call(edit("fn main() {\nlet x = 1;", "z"), &ctx)
            .await
            .unwrap_err();
        assert!(
            matches!(&err, ToolError::Retry(m) if m.contains("not found") && m.contains("indentation or whitespace differs")),
            "{err:?}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("main.rs")).unwrap(),
            SOURCE
        );
    }

    #[tokio::test]
    async fn many_matches_is_a_retry_with_the_count() {
        let (dir, ctx) = setup("a = 1;\nb = 1;\nc = 1;\n");
        let err = UpdateFile
            .call(edit(" = 1;", " = 2;"), &ctx)
            .await
            .unwrap_err();
        assert!(
            matches!(&err, ToolError::Retry(m) if m.contains("matches 3 places") && m.contains("more"))
        );
        // Overlapping occurrences count too.
        std::fs::write(dir.path().join("main.rs"), "aaa").unwrap();
        let err = UpdateFile.call(edit("aa", "b"), &ctx).await.unwrap_err();
        assert!(matches!(&err, ToolError::Retry(m) if m.contains("matches 2 places")));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("main.rs")).unwrap(),
            "aaa"
        );
    }

    #[tokio::test]
    async fn empty_or_identical_target_and_missing_file_are_retries() {
        let (_dir, ctx) = setup(SOURCE);
        let err = UpdateFile.call(edit("", "x"), &ctx).await.unwrap_err();
        assert!(matches!(&err, ToolError::Retry(m) if m.contains("`target` is empty")));
        let err = UpdateFile
            .call(edit("main", "main"), &ctx)
            .await
            .unwrap_err();
        assert!(matches!(&err, ToolError::Retry(m) if m.contains("identical")));
        let a = args(json!({"file_path": "gone.rs", "target": "a", "replacement": "b"}));
        let err = UpdateFile.call(a, &ctx).await.unwrap_err();
        assert!(matches!(&err, ToolError::Retry(m) if m.contains("does not exist")));
        let a = args(json!({"file_path": "/etc/hostname", "target": "a", "replacement": "b"}));
        let err = UpdateFile.call(a, &ctx).await.unwrap_err();
        assert!(matches!(&err, ToolError::Retry(m) if m.contains("outside the workspace")));
    }

    #[tokio::test]
    async fn writes_atomically_keeping_permissions() {
        let (dir, ctx) = setup(SOURCE);
        let file = dir.path().join("main.rs");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o750)).unwrap();
        UpdateFile
            .call(edit("}\n", "} // end\n"), &ctx)
            .await
            .unwrap();
        let meta = std::fs::metadata(&file).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o750);
        assert!(
            std::fs::read_to_string(&file)
                .unwrap()
                .ends_with("} // end\n")
        );
        let entries = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(entries, 1, "no temporary file left behind");
    }

    #[tokio::test]
    async fn never_edits_through_a_link_or_a_secret() {
        let (dir, ctx) = setup(SOURCE);
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(outside.path().join("t.rs"), SOURCE).unwrap();
        std::os::unix::fs::symlink(outside.path().join("t.rs"), root.join("out.rs")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("outdir")).unwrap();
        std::os::unix::fs::symlink("main.rs", root.join("near.rs")).unwrap();
        std::fs::write(root.join(".env"), "KEY=secret-value\n").unwrap();
        for (path, says) in [
            ("out.rs", "outside the workspace"),
            ("outdir/t.rs", "outside the workspace"),
            ("near.rs", "is a symbolic link (to `main.rs`)"),
            (".env", "secrets file"),
        ] {
            let a = args(json!({"file_path": path, "target": "x = 1", "replacement": "x = 9"}));
            let err = UpdateFile.call(a.clone(), &ctx).await.unwrap_err();
            assert!(err.to_string().contains(says), "{path}: {err}");
            assert!(!err.to_string().contains("secret-value"));
            assert_eq!(UpdateFile.preview(&a, &ctx).await.unwrap_err(), err);
        }
        assert_eq!(
            std::fs::read_to_string(outside.path().join("t.rs")).unwrap(),
            SOURCE
        );
        assert_eq!(
            std::fs::read_to_string(root.join("main.rs")).unwrap(),
            SOURCE
        );
        assert!(
            std::fs::symlink_metadata(root.join("near.rs"))
                .unwrap()
                .is_symlink()
        );
    }

    #[tokio::test]
    async fn a_file_swapped_for_a_link_after_the_check_is_not_written_through() {
        let (dir, ctx) = setup(SOURCE);
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("victim"), SOURCE).unwrap();
        let planned = plan(&edit("let x = 1;", "let x = 2;"), &ctx).await.unwrap();
        std::fs::remove_file(dir.path().join("main.rs")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("victim"), dir.path().join("main.rs"))
            .unwrap();
        let err = write(&planned, &ctx.workspace).await.unwrap_err();
        assert!(
            matches!(&err, ToolError::Retry(m) if m.contains("not a regular file")),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(outside.path().join("victim")).unwrap(),
            SOURCE
        );
    }
}
