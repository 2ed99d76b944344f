//! `write_file`: creates a new file; never overwrites.

use std::path::PathBuf;
use std::sync::LazyLock;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tunacode_protocol::HunkSelection;

use crate::args::{parse, path_arg};
use crate::beneath::Beneath;
use crate::diff::{apply_picked, as_reviewed, unified_diff};
use crate::fsutil::{blocking, io_error};
use crate::schema::schema_for;
use crate::tool::{Tool, ToolContext, ToolKind, ToolOutput};
use crate::tool_error::ToolError;
use crate::workspace::{Located, Workspace};

const NAME: &str = "write_file";

/// Creates a new file (and its parent directories); refuses to overwrite an existing one.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteFile;

#[derive(Deserialize, JsonSchema)]
struct Args {
    file_path: String,
    content: String,
}

/// A checked call: where the file goes, its display form and the diff from nothing to the content.
struct Plan {
    at: Located,
    shown: String,
    content: String,
    diff: String,
}

async fn plan(args: &Map<String, Value>, ctx: &ToolContext) -> Result<Plan, ToolError> {
    let args: Args = parse(NAME, args)?;
    let workspace = ctx.workspace.clone();
    blocking(move || {
        let at = workspace.locate(&args.file_path)?;
        workspace.refuse_change(&at)?;
        let shown = workspace.display(&at.real);
        match std::fs::symlink_metadata(&at.real) {
            Ok(meta) if meta.is_dir() => {
                return Err(ToolError::Retry(format!("`{shown}` is a directory")));
            }
            Ok(_) => return Err(exists(&shown)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_error(&shown, e)),
        }
        let diff = unified_diff("", &args.content, "/dev/null", &format!("b/{shown}"));
        Ok(Plan {
            at,
            shown,
            content: args.content,
            diff,
        })
    })
    .await
}

/// Creates the file and says so.
async fn finish(plan: Plan, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    create(&plan, &ctx.workspace).await?;
    let lines = plan.content.lines().count();
    Ok(ToolOutput {
        content: format!(
            "Created `{}` ({lines} lines, {} bytes).",
            plan.shown,
            plan.content.len()
        ),
        diff: Some(plan.diff),
        images: Vec::new(),
    })
}

fn exists(shown: &str) -> ToolError {
    ToolError::Retry(format!(
        "`{shown}` already exists; use update_file to change it"
    ))
}

/// Creates the planned file: on disk beneath the workspace root, with no link followed and
/// `O_EXCL` keeping the no-overwrite promise even if something appeared since the check; or, in an
/// editor, its parent folders on disk and the text through the editor.
async fn create(plan: &Plan, workspace: &Workspace) -> Result<(), ToolError> {
    let (root, rel) = (
        workspace.root().to_path_buf(),
        workspace.relative(&plan.at).to_path_buf(),
    );
    let (shown, content) = (plan.shown.clone(), plan.content.clone());
    let in_editor = workspace.editor().is_some();
    blocking(move || {
        let beneath = Beneath::new(&root).map_err(|e| io_error(&shown, e))?;
        let created = if in_editor {
            let parent = rel.parent().unwrap_or(std::path::Path::new(""));
            beneath.create_dirs(parent).map(drop)
        } else {
            beneath.create_new(&rel, content.as_bytes())
        };
        created.map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => exists(&shown),
            _ => io_error(&shown, e),
        })
    })
    .await?;
    if let Some(editor) = workspace.editor() {
        editor
            .write_text(&plan.at.real, &plan.content)
            .await
            .map_err(|e| io_error(&plan.shown, e))?;
    }
    Ok(())
}

#[async_trait]
impl Tool for WriteFile {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        "Create a NEW file (and its parent directories). Fails if the file exists: change existing \
         files with update_file."
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

    /// A new file is one hunk: written as the model wrote it, or as the user rewrote it.
    async fn call_picked(
        &self,
        args: Map<String, Value>,
        ctx: &ToolContext,
        reviewed: &str,
        pick: &HunkSelection,
    ) -> Result<ToolOutput, ToolError> {
        let mut plan = plan(&args, ctx).await?;
        as_reviewed(&plan.diff, &[("", &plan.content)], reviewed)?;
        plan.content = apply_picked("", &plan.content, 0, pick);
        plan.diff = unified_diff("", &plan.content, "/dev/null", &format!("b/{}", plan.shown));
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

    #[tokio::test]
    async fn creates_the_file_and_its_parents_with_a_diff() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path());
        let a = args(json!({"file_path": "src/deep/new.txt", "content": "one\ntwo\n"}));
        let preview = WriteFile.preview(&a, &ctx).await.unwrap().unwrap();
        assert!(!dir.path().join("src").exists(), "preview must not write");
        let out = WriteFile.call(a, &ctx).await.unwrap();
        let written = std::fs::read_to_string(dir.path().join("src/deep/new.txt")).unwrap();
        assert_eq!(written, "one\ntwo\n");
        assert_eq!(
            out.content,
            "Created `src/deep/new.txt` (2 lines, 8 bytes)."
        );
        let diff = out.diff.unwrap();
        assert_eq!(diff, preview);
        assert_eq!(
            diff,
            "--- /dev/null\n+++ b/src/deep/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"
        );
    }

    #[tokio::test]
    async fn refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.txt"), "keep").unwrap();
        let ctx = ctx(dir.path());
        let a = args(json!({"file_path": "x.txt", "content": "new"}));
        let err = WriteFile.call(a.clone(), &ctx).await.unwrap_err();
        assert!(
            matches!(&err, ToolError::Retry(m) if m.contains("already exists; use update_file"))
        );
        assert_eq!(WriteFile.preview(&a, &ctx).await.unwrap_err(), err);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("x.txt")).unwrap(),
            "keep"
        );
    }

    #[tokio::test]
    async fn refuses_paths_outside_and_bad_arguments() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path());
        let err = WriteFile
            .call(
                args(json!({"file_path": "../evil.txt", "content": "x"})),
                &ctx,
            )
            .await
            .unwrap_err();
        assert!(matches!(err, ToolError::Retry(m) if m.contains("outside the workspace")));
        let err = WriteFile
            .call(args(json!({"file_path": "a"})), &ctx)
            .await
            .unwrap_err();
        assert!(matches!(err, ToolError::Retry(m) if m.contains("`content`")));
    }

    #[tokio::test]
    async fn never_writes_through_a_link_and_never_writes_secrets() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::os::unix::fs::symlink(outside.path().join("x"), root.join("dangling")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
        std::fs::write(root.join("real.txt"), "keep").unwrap();
        std::os::unix::fs::symlink("real.txt", root.join("near")).unwrap();
        std::os::unix::fs::symlink("missing.txt", root.join("near_dangling")).unwrap();
        let ctx = ctx(root);
        for (path, says) in [
            ("dangling", "outside the workspace"),
            ("out/new.txt", "outside the workspace"),
            ("near", "is a symbolic link"),
            ("near_dangling", "is a symbolic link"),
            (".env", "secrets file"),
            (".env.local ", "secrets file"),
        ] {
            let a = args(json!({"file_path": path, "content": "evil"}));
            let err = WriteFile.call(a, &ctx).await.unwrap_err();
            assert!(err.to_string().contains(says), "{path}: {err}");
        }
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
        assert_eq!(
            std::fs::read_to_string(root.join("real.txt")).unwrap(),
            "keep"
        );
        assert!(!root.join("missing.txt").exists());
        assert!(!root.join(".env").exists());
        WriteFile
            .call(
                args(json!({"file_path": ".env.example", "content": "K=\n"})),
                &ctx,
            )
            .await
            .unwrap();
    }

    #[test]
    fn the_target_is_the_path_as_asked() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path());
        let a = args(json!({"file_path": "a/../.git/hooks/pre-commit ", "content": ""}));
        assert_eq!(
            WriteFile.target_paths(&a, &ctx.workspace),
            vec![ctx.workspace.root().join(".git/hooks/pre-commit")]
        );
        assert!(
            WriteFile
                .target_paths(&args(json!({})), &ctx.workspace)
                .is_empty()
        );
    }
}
