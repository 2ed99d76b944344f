//! `apply_patch`: adds, updates, moves and deletes several files in one call, in the patch format
//! OpenAI's models are trained to write, as Codex offers it (one string argument, `input`). All or
//! nothing: every operation is checked and computed in memory first, and nothing is written when one
//! fails; the model is told which file and which hunk.

mod apply;
mod parse;

use std::path::PathBuf;
use std::sync::LazyLock;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::args::parse as parse_args;
use crate::diff::unified_diff;
use crate::fsutil::{io_error, join_error, write_atomically};
use crate::schema::schema_for;
use crate::tool::{Tool, ToolContext, ToolError, ToolKind, ToolOutput};
use parse::{FileOp, parse_patch};

const NAME: &str = "apply_patch";

/// Every path a patch names (added, deleted, updated, moved to), as written; read leniently, so a
/// patch that will fail to apply still shows what it touches (for permission rules).
pub fn patch_paths(input: &str) -> Vec<String> {
    const HEADERS: [&str; 4] = [
        "*** Add File:",
        "*** Delete File:",
        "*** Update File:",
        "*** Move to:",
    ];
    input
        .lines()
        .filter_map(|line| {
            HEADERS
                .iter()
                .find_map(|h| line.strip_prefix(h))
                .map(|path| path.trim().to_string())
        })
        .collect()
}

/// Applies a multi-file patch.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApplyPatch;

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The whole patch, from `*** Begin Patch` to `*** End Patch`.
    input: String,
}

/// One file's change, checked and computed.
struct Change {
    /// Where it is now (or will be, for an added file).
    path: PathBuf,
    shown: String,
    /// Its content now (`None`: it does not exist yet).
    old: Option<String>,
    /// Its content after (`None`: deleted).
    new: Option<String>,
    /// For a move: where it goes.
    move_to: Option<(PathBuf, String)>,
}

impl Change {
    fn summary(&self) -> String {
        match (&self.old, &self.new, &self.move_to) {
            (None, _, _) => format!("A {}", self.shown),
            (_, None, _) => format!("D {}", self.shown),
            (_, _, Some((_, to))) => format!("R {} -> {to}", self.shown),
            _ => format!("M {}", self.shown),
        }
    }

    fn diff(&self) -> String {
        let old_header = match &self.old {
            Some(_) => format!("a/{}", self.shown),
            None => "/dev/null".into(),
        };
        let new_header = match (&self.new, &self.move_to) {
            (None, _) => "/dev/null".into(),
            (_, Some((_, to))) => format!("b/{to}"),
            _ => format!("b/{}", self.shown),
        };
        let (old, new) = (
            self.old.as_deref().unwrap_or(""),
            self.new.as_deref().unwrap_or(""),
        );
        unified_diff(old, new, &old_header, &new_header)
    }
}

/// Checks every operation of the patch against the workspace and computes the new contents.
fn plan(input: &str, ctx: &ToolContext) -> Result<Vec<Change>, ToolError> {
    let ops = parse_patch(input).map_err(|e| ToolError::Retry(format!("invalid patch: {e}")))?;
    let read = |path: &PathBuf, shown: &str| -> Result<String, ToolError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Ok(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(ToolError::Retry(format!(
                "`{shown}` does not exist; nothing was changed"
            ))),
            Err(e) => Err(io_error(shown, e)),
        }
    };
    let mut changes: Vec<Change> = Vec::new();
    for op in ops {
        let path_text = match &op {
            FileOp::Add { path, .. } | FileOp::Delete { path } | FileOp::Update { path, .. } => {
                path
            }
        };
        let path = ctx.workspace.resolve(path_text)?;
        let shown = ctx.workspace.display(&path);
        if changes.iter().any(|c| c.path == path) {
            return Err(ToolError::Retry(format!(
                "`{shown}` appears twice in the patch; nothing was changed"
            )));
        }
        let change = match op {
            FileOp::Add { lines, .. } => {
                if path.exists() {
                    return Err(ToolError::Retry(format!(
                        "`{shown}` already exists: use `*** Update File:`; nothing was changed"
                    )));
                }
                let mut text = lines.join("\n");
                text.push('\n');
                Change {
                    path,
                    shown,
                    old: None,
                    new: Some(text),
                    move_to: None,
                }
            }
            FileOp::Delete { .. } => {
                let old = read(&path, &shown)?;
                Change {
                    path,
                    shown,
                    old: Some(old),
                    new: None,
                    move_to: None,
                }
            }
            FileOp::Update { move_to, hunks, .. } => {
                let old = read(&path, &shown)?;
                let new = apply::apply_hunks(&old, &hunks, &shown).map_err(ToolError::Retry)?;
                let move_to = match move_to {
                    Some(to) => {
                        let target = ctx.workspace.resolve(&to)?;
                        let to_shown = ctx.workspace.display(&target);
                        if target.exists() {
                            return Err(ToolError::Retry(format!(
                                "cannot move `{shown}` to `{to_shown}`: it exists; nothing was changed"
                            )));
                        }
                        Some((target, to_shown))
                    }
                    None => None,
                };
                Change {
                    path,
                    shown,
                    old: Some(old),
                    new: Some(new),
                    move_to,
                }
            }
        };
        changes.push(change);
    }
    Ok(changes)
}

/// Writes the planned changes (new files with their parent folders; updates atomically).
fn write(changes: &[Change]) -> Result<(), ToolError> {
    for change in changes {
        let target = change.move_to.as_ref().map_or(&change.path, |(p, _)| p);
        let shown = change.move_to.as_ref().map_or(&change.shown, |(_, s)| s);
        match (&change.old, &change.new) {
            (_, None) => {
                std::fs::remove_file(&change.path).map_err(|e| io_error(&change.shown, e))?
            }
            (Some(_), Some(text)) if change.move_to.is_none() => {
                write_atomically(target, text.as_bytes()).map_err(|e| io_error(shown, e))?
            }
            (_, Some(text)) => {
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| io_error(shown, e))?;
                }
                std::fs::write(target, text).map_err(|e| io_error(shown, e))?;
                if change.move_to.is_some() {
                    std::fs::remove_file(&change.path).map_err(|e| io_error(&change.shown, e))?;
                }
            }
        }
    }
    Ok(())
}

async fn planned(args: &Map<String, Value>, ctx: &ToolContext) -> Result<Vec<Change>, ToolError> {
    let args: Args = parse_args(NAME, args)?;
    let ctx = ctx.clone();
    tokio::task::spawn_blocking(move || plan(&args.input, &ctx))
        .await
        .map_err(join_error)?
}

fn combined_diff(changes: &[Change]) -> String {
    changes
        .iter()
        .map(Change::diff)
        .collect::<Vec<_>>()
        .join("")
}

#[async_trait]
impl Tool for ApplyPatch {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        "Add, update, move and delete several files in one call. `input` is a patch: `*** Begin Patch`, \
         then for each file `*** Add File: path` (every line `+text`), `*** Delete File: path`, or \
         `*** Update File: path` (optionally `*** Move to: new/path`) followed by hunks: `@@` (optionally \
         `@@ a line to find first`, like a function signature) then lines ` context`, `-removed`, \
         `+added` (3 lines of context around each change); `*** End Patch`. Paths are relative to the \
         workspace root. All or nothing: if one hunk does not match, nothing is written."
    }

    fn parameters(&self) -> Value {
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
        let changes = planned(&args, ctx).await?;
        let diff = combined_diff(&changes);
        let summary: Vec<String> = changes.iter().map(Change::summary).collect();
        tokio::task::spawn_blocking(move || write(&changes))
            .await
            .map_err(join_error)??;
        Ok(ToolOutput {
            content: format!("Applied the patch:\n{}", summary.join("\n")),
            diff: Some(diff),
            images: Vec::new(),
        })
    }

    async fn preview(
        &self,
        args: &Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<Option<String>, ToolError> {
        Ok(Some(combined_diff(&planned(args, ctx).await?)))
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
