//! `list_dir`: the entries of one directory (gitignore-aware).

use async_trait::async_trait;
use ignore::WalkBuilder;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::args::parse;
use crate::fsutil::join_error;
use crate::schema::schema_for;
use crate::tool::{Tool, ToolContext, ToolKind, ToolOutput};
use crate::tool_error::ToolError;
use crate::tools::glob::locate_dir;
use std::sync::LazyLock;

const NAME: &str = "list_dir";
/// Entries shown at most.
const MAX_ENTRIES: usize = 200;

/// Lists a directory's entries: directories first (with a trailing `/`), then files, each sorted by name.
#[derive(Debug, Clone, Copy, Default)]
pub struct ListDir;

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// Directory to list (default: the root).
    directory: Option<String>,
}

#[async_trait]
impl Tool for ListDir {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        "List a directory: subdirectories first (ending in `/`), then files, skipping hidden and \
         ignored entries."
    }

    fn parameters(&self) -> Value {
        // Derived once: the schema is offered to the model on every call.
        static SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<Args>);
        SCHEMA.clone()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::ReadOnly
    }

    async fn call(
        &self,
        args: Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let args: Args = parse(NAME, &args)?;
        let (dir, meta) = locate_dir(&ctx.workspace, args.directory.as_deref()).await?;
        let shown = ctx.workspace.display(&dir);
        if !meta.is_dir() {
            return Err(ToolError::Retry(format!(
                "`{shown}` is not a directory; use read_file to read a file"
            )));
        }
        if ctx.cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        let walk_dir = dir.clone();
        let mut entries = tokio::task::spawn_blocking(move || {
            WalkBuilder::new(&walk_dir)
                .max_depth(Some(1))
                .hidden(true)
                .require_git(false)
                .build()
                .filter_map(Result::ok)
                .filter(|e| e.depth() == 1)
                .map(|e| {
                    let is_dir = e.file_type().is_some_and(|t| t.is_dir())
                        || (e.path_is_symlink() && e.path().is_dir());
                    (!is_dir, e.file_name().to_string_lossy().into_owned())
                })
                .collect::<Vec<_>>()
        })
        .await
        .map_err(join_error)?;
        if entries.is_empty() {
            return Ok(ToolOutput::text(format!(
                "`{shown}` is empty (or all its entries are hidden or ignored)."
            )));
        }
        entries.sort();
        let total = entries.len();
        let mut out: String = entries
            .iter()
            .take(MAX_ENTRIES)
            .map(|(is_file, name)| format!("{name}{}\n", if *is_file { "" } else { "/" }))
            .collect();
        if total > MAX_ENTRIES {
            out.push_str(&format!(
                "... and {} more entries (showing the first {MAX_ENTRIES}); use glob to find specific files\n",
                total - MAX_ENTRIES
            ));
        }
        Ok(ToolOutput::text(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{args, ctx};
    use serde_json::json;
    use std::path::Path;

    async fn list(dir: &Path, a: Value) -> Result<String, ToolError> {
        ListDir.call(args(a), &ctx(dir)).await.map(|o| o.content)
    }

    #[tokio::test]
    async fn lists_dirs_first_then_files_skipping_hidden_and_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in ["zeta", "alpha", "target", ".git", "alpha/inner"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for f in [
            "b.txt",
            "a.txt",
            ".env",
            "debug.log",
            "alpha/x.rs",
            ".gitignore",
        ] {
            std::fs::write(root.join(f), "").unwrap();
        }
        std::fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
        let out = list(root, json!({})).await.unwrap();
        assert_eq!(out, "alpha/\nzeta/\na.txt\nb.txt\n");
        let out = list(root, json!({"directory": "alpha"})).await.unwrap();
        assert_eq!(out, "inner/\nx.rs\n");
        let out = list(root, json!({"directory": "zeta"})).await.unwrap();
        assert!(out.contains("is empty"), "{out}");
    }

    #[tokio::test]
    async fn caps_at_200_entries() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..250 {
            std::fs::write(dir.path().join(format!("f{i:03}")), "").unwrap();
        }
        let out = list(dir.path(), json!({"directory": "."})).await.unwrap();
        let lines: Vec<_> = out.lines().collect();
        assert_eq!(lines.len(), 201);
        assert_eq!(lines[0], "f000");
        assert_eq!(lines[199], "f199");
        assert!(
            lines[200].starts_with("... and 50 more entries"),
            "{}",
            lines[200]
        );
    }

    #[tokio::test]
    async fn refuses_files_missing_dirs_and_paths_outside() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "").unwrap();
        let err = list(dir.path(), json!({"directory": "f"}))
            .await
            .unwrap_err();
        assert!(matches!(err, ToolError::Retry(m) if m.contains("not a directory")));
        let err = list(dir.path(), json!({"directory": "nope"}))
            .await
            .unwrap_err();
        assert!(matches!(err, ToolError::Retry(m) if m.contains("does not exist")));
        let err = list(dir.path(), json!({"directory": ".."}))
            .await
            .unwrap_err();
        assert!(matches!(err, ToolError::Retry(m) if m.contains("outside the workspace")));
    }

    #[tokio::test]
    async fn lists_names_through_links_inside_but_refuses_links_out_and_secrets() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("real")).unwrap();
        std::fs::write(root.join("real/a.txt"), "").unwrap();
        std::os::unix::fs::symlink("real", root.join("alias")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
        std::fs::create_dir(root.join(".env.d")).unwrap();
        assert_eq!(
            list(root, json!({"directory": "alias"})).await.unwrap(),
            "a.txt\n"
        );
        let out = list(root, json!({})).await.unwrap();
        assert_eq!(
            out, "alias/\nout/\nreal/\n",
            "names only, even of a link out"
        );
        let err = list(root, json!({"directory": "out"})).await.unwrap_err();
        assert!(err.to_string().contains("outside the workspace"), "{err}");
        let err = list(root, json!({"directory": ".env.d"}))
            .await
            .unwrap_err();
        assert!(
            matches!(&err, ToolError::Fatal(m) if m.contains("secrets")),
            "{err}"
        );
    }
}
