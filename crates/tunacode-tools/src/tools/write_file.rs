//! `write_file`: creates a new file; never overwrites.

use std::path::PathBuf;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::io::AsyncWriteExt;

use crate::args::parse;
use crate::diff::unified_diff;
use crate::fsutil::io_error;
use crate::schema::schema_for;
use crate::tool::{Tool, ToolContext, ToolError, ToolKind, ToolOutput};
use std::sync::LazyLock;

const NAME: &str = "write_file";

/// Creates a new file (and its parent directories); refuses to overwrite an existing one.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteFile;

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// Path of the new file, relative to the workspace root (or absolute inside it).
    file_path: String,
    /// The complete content of the new file.
    content: String,
}

/// A checked call: the resolved path, its display form and the diff from nothing to the new content.
struct Plan {
    path: PathBuf,
    shown: String,
    content: String,
    diff: String,
}

async fn plan(args: &Map<String, Value>, ctx: &ToolContext) -> Result<Plan, ToolError> {
    let args: Args = parse(NAME, args)?;
    let path = ctx.workspace.resolve(&args.file_path)?;
    let shown = ctx.workspace.display(&path);
    match tokio::fs::symlink_metadata(&path).await {
        Ok(meta) if meta.is_dir() => {
            return Err(ToolError::Retry(format!("`{shown}` is a directory")));
        }
        Ok(_) => {
            return Err(ToolError::Retry(format!(
                "`{shown}` already exists; use update_file to change it"
            )));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_error(&shown, e)),
    }
    let diff = unified_diff("", &args.content, "/dev/null", &format!("b/{shown}"));
    Ok(Plan {
        path,
        shown,
        content: args.content,
        diff,
    })
}

/// Creates the planned file on disk; `create_new` keeps the no-overwrite promise even if the file
/// appeared since the check.
async fn create_new(plan: &Plan) -> Result<(), ToolError> {
    let mut file = tokio::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&plan.path)
        .await
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => ToolError::Retry(format!(
                "`{}` already exists; use update_file to change it",
                plan.shown
            )),
            _ => io_error(&plan.shown, e),
        })?;
    file.write_all(plan.content.as_bytes())
        .await
        .map_err(|e| io_error(&plan.shown, e))?;
    file.flush().await.map_err(|e| io_error(&plan.shown, e))
}

#[async_trait]
impl Tool for WriteFile {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        "Create a NEW file with the given content, creating parent directories as needed. Fails if the \
         file already exists: to change an existing file use update_file."
    }

    fn parameters(&self) -> Value {
        // Derived once: the schema is offered to the model on every call.
        static SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<Args>);
        SCHEMA.clone()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    async fn call(
        &self,
        args: Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let plan = plan(&args, ctx).await?;
        if let Some(parent) = plan.path.parent() {
            tokio::fs::create_dir_all(parent)
                .await
                .map_err(|e| io_error(&ctx.workspace.display(parent), e))?;
        }
        if let Some(editor) = ctx.workspace.editor() {
            editor
                .write_text(&plan.path, &plan.content)
                .await
                .map_err(|e| io_error(&plan.shown, e))?;
        } else {
            create_new(&plan).await?;
        }
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
}
