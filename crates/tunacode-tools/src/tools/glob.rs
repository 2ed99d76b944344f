//! `glob`: finds files by path pattern (gitignore-aware).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use globset::GlobBuilder;
use ignore::WalkBuilder;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::args::parse;
use crate::fsutil::{blocking, io_error, join_error};
use crate::schema::schema_for;
use crate::tool::{Tool, ToolContext, ToolKind, ToolOutput};
use crate::tool_error::ToolError;
use crate::workspace::Workspace;
use std::sync::LazyLock;

const NAME: &str = "glob";
const DEFAULT_MAX_RESULTS: usize = 1000;
const MAX_MAX_RESULTS: usize = 10_000;
/// How long a walk may run before it stops with partial results.
const DEADLINE: Duration = Duration::from_secs(10);

/// Lists files whose path (relative to the base directory) matches a glob, honouring `.gitignore`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Glob;

#[derive(Deserialize, JsonSchema)]
struct Args {
    pattern: String,
    /// Directory to search from (default: the root).
    path: Option<String>,
    /// Default 1000.
    #[schemars(range(min = 1, max = MAX_MAX_RESULTS))]
    max_results: Option<u64>,
}

struct Walk {
    pattern: String,
    base: PathBuf,
    max_results: usize,
    workspace: Workspace,
    cancel: CancellationToken,
}

fn run_walk(w: Walk) -> Result<String, ToolError> {
    let pattern = w.pattern.trim().trim_start_matches("./");
    let glob = GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| ToolError::Retry(format!("invalid glob `{}`: {e}", w.pattern)))?
        .compile_matcher();
    let deadline = Instant::now() + DEADLINE;
    let mut found = Vec::new();
    let mut total = 0usize;
    let mut timed_out = false;
    // A sorted walk makes the kept subset deterministic when the results are capped.
    let walk = WalkBuilder::new(&w.base)
        .hidden(true)
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    for entry in walk {
        if w.cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        if Instant::now() >= deadline {
            timed_out = true;
            break;
        }
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(&w.base) else {
            continue;
        };
        if glob.is_match(rel) {
            total += 1;
            if found.len() < w.max_results {
                found.push(w.workspace.display(entry.path()));
            }
        }
    }
    let shown_base = w.workspace.display(&w.base);
    if found.is_empty() && !timed_out {
        return Ok(format!("No files match `{}` in `{shown_base}`.", w.pattern));
    }
    found.sort();
    let mut out: String = found.iter().map(|p| format!("{p}\n")).collect();
    if total > found.len() {
        out.push_str(&format!(
            "(results capped at {}; {} more files match; use a narrower pattern or path)\n",
            found.len(),
            total - found.len()
        ));
    }
    if timed_out {
        out.push_str("(search cut short by its time limit; results are incomplete)\n");
    }
    Ok(out)
}

/// Where the directory `path` (default: the root) leads, and what is there: links resolved once, a
/// secret refused (its names could be listed, but a secret folder is not walked into).
pub(crate) async fn locate_dir(
    workspace: &Workspace,
    path: Option<&str>,
) -> Result<(PathBuf, std::fs::Metadata), ToolError> {
    let (workspace, path) = (workspace.clone(), path.unwrap_or(".").to_string());
    blocking(move || {
        let at = workspace.locate(&path)?;
        workspace.refuse_secret(&at)?;
        let meta =
            std::fs::metadata(&at.real).map_err(|e| io_error(&workspace.display(&at.real), e))?;
        Ok((at.real, meta))
    })
    .await
}

#[async_trait]
impl Tool for Glob {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        "Find files by path pattern (`*` within a directory, `**` across them, `{a,b}` either) matched \
         against paths relative to `path`, skipping ignored and hidden files. Returns sorted paths, one \
         per line."
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
        let (base, meta) = locate_dir(&ctx.workspace, args.path.as_deref()).await?;
        let shown = ctx.workspace.display(&base);
        if !meta.is_dir() {
            return Err(ToolError::Retry(format!(
                "`{shown}` is not a directory; `path` must be a directory"
            )));
        }
        let max_results = args
            .max_results
            .map_or(DEFAULT_MAX_RESULTS, |n| {
                usize::try_from(n).unwrap_or(usize::MAX)
            })
            .clamp(1, MAX_MAX_RESULTS);
        let walk = Walk {
            pattern: args.pattern,
            base,
            max_results,
            workspace: ctx.workspace.clone(),
            cancel: ctx.cancel.clone(),
        };
        let task = tokio::task::spawn_blocking(move || run_walk(walk));
        tokio::select! {
            _ = ctx.cancel.cancelled() => Err(ToolError::Cancelled),
            result = task => result.map_err(join_error)?.map(ToolOutput::text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{args, ctx};
    use serde_json::json;
    use std::path::Path;

    async fn glob(dir: &Path, a: Value) -> Result<String, ToolError> {
        Glob.call(args(a), &ctx(dir)).await.map(|o| o.content)
    }

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in ["src/b", "src/a", "target"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        for f in [
            "src/z.rs",
            "src/b/m.rs",
            "src/a/n.rs",
            "src/a/readme.md",
            "top.rs",
            "target/t.rs",
            ".h.rs",
        ] {
            std::fs::write(root.join(f), "").unwrap();
        }
        dir
    }

    #[tokio::test]
    async fn matches_sorted_relative_paths_and_skips_ignored_files() {
        let dir = tree();
        let out = glob(dir.path(), json!({"pattern": "**/*.rs"}))
            .await
            .unwrap();
        assert_eq!(out, "src/a/n.rs\nsrc/b/m.rs\nsrc/z.rs\ntop.rs\n");
        let out = glob(dir.path(), json!({"pattern": "*.rs"})).await.unwrap();
        assert_eq!(out, "top.rs\n", "`*` does not cross directories");
        let out = glob(dir.path(), json!({"pattern": "*/*.{rs,md}", "path": "src"}))
            .await
            .unwrap();
        assert_eq!(out, "src/a/n.rs\nsrc/a/readme.md\nsrc/b/m.rs\n");
    }

    #[tokio::test]
    async fn caps_results_with_a_note() {
        let dir = tree();
        let out = glob(dir.path(), json!({"pattern": "**/*", "max_results": 2}))
            .await
            .unwrap();
        assert_eq!(
            out,
            "src/a/n.rs\nsrc/a/readme.md\n(results capped at 2; 3 more files match; use a narrower pattern or path)\n"
        );
    }

    #[tokio::test]
    async fn no_match_bad_glob_and_bad_paths() {
        let dir = tree();
        let out = glob(dir.path(), json!({"pattern": "**/*.py"}))
            .await
            .unwrap();
        assert_eq!(out, "No files match `**/*.py` in `.`.");
        let err = glob(dir.path(), json!({"pattern": "src/[a"}))
            .await
            .unwrap_err();
        assert!(matches!(err, ToolError::Retry(m) if m.contains("invalid glob")));
        let err = glob(dir.path(), json!({"pattern": "*", "path": "/"}))
            .await
            .unwrap_err();
        assert!(matches!(err, ToolError::Retry(m) if m.contains("outside the workspace")));
        let err = glob(dir.path(), json!({"pattern": "*", "path": "top.rs"}))
            .await
            .unwrap_err();
        assert!(matches!(err, ToolError::Retry(m) if m.contains("not a directory")));
    }

    #[tokio::test]
    async fn links_out_are_not_walked_and_secret_folders_are_refused() {
        let dir = tree();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("o.rs"), "").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("src/out")).unwrap();
        let out = glob(dir.path(), json!({"pattern": "**/*.rs"}))
            .await
            .unwrap();
        assert!(!out.contains("o.rs"), "{out}");
        let err = glob(dir.path(), json!({"pattern": "*", "path": "src/out"}))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("outside the workspace"), "{err}");
        std::fs::create_dir(dir.path().join(".env.d")).unwrap();
        let err = glob(dir.path(), json!({"pattern": "*", "path": ".env.d"}))
            .await
            .unwrap_err();
        assert!(
            matches!(&err, ToolError::Fatal(m) if m.contains("secrets")),
            "{err}"
        );
    }
}
