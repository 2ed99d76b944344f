//! `apply_patch`: adds, updates, moves and deletes several files in one call, in the patch format
//! OpenAI's models are trained to write, as Codex offers it (one string argument, `input`). All or
//! nothing: every operation is checked and computed in memory first, and nothing is written when one
//! fails (a path that is a link, leads outside, holds secrets or is touched twice included); the
//! model is told which file and which hunk. Files are written beneath the workspace root with no
//! link followed.

mod apply;
mod change;
mod parse;
mod pick;
mod plan;

use std::path::PathBuf;
use std::sync::LazyLock;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tunacode_protocol::HunkSelection;

use change::Change;

use crate::args::parse as parse_args;
use crate::diff::as_reviewed;
use crate::fsutil::blocking;
use crate::schema::schema_for;
use crate::tool::{Tool, ToolContext, ToolKind, ToolOutput};
use crate::tool_error::ToolError;
use crate::workspace::Workspace;

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
    /// The whole patch.
    input: String,
}

async fn planned(args: &Map<String, Value>, ctx: &ToolContext) -> Result<Vec<Change>, ToolError> {
    let args: Args = parse_args(NAME, args)?;
    let ctx = ctx.clone();
    blocking(move || plan::plan(&args.input, &ctx)).await
}

/// Writes `changes` and says what was written (the diff of exactly that).
async fn write_changes(changes: Vec<Change>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let diff = combined_diff(&changes);
    let summary: Vec<String> = changes.iter().map(Change::summary).collect();
    let workspace = ctx.workspace.clone();
    blocking(move || plan::write(&changes, &workspace)).await?;
    Ok(ToolOutput {
        content: format!("Applied the patch:\n{}", summary.join("\n")),
        diff: Some(diff),
        images: Vec::new(),
    })
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
        "Add, update, move and delete files at once, all or nothing. `input`: `*** Begin Patch`, then \
         per file `*** Add File: path` (lines `+text`), `*** Delete File: path` or `*** Update File: \
         path` (optionally `*** Move to: path`) with hunks: `@@` (or `@@ line to find first`), then \
         ` context`, `-removed`, `+added` lines (3 of context); `*** End Patch`."
    }

    fn parameters(&self) -> Value {
        static SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<Args>);
        SCHEMA.clone()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    fn target_paths(&self, args: &Map<String, Value>, workspace: &Workspace) -> Vec<PathBuf> {
        match args.get("input").and_then(Value::as_str) {
            Some(input) => plan::target_paths(input, workspace),
            None => Vec::new(),
        }
    }

    async fn call(
        &self,
        args: Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let changes = planned(&args, ctx).await?;
        write_changes(changes, ctx).await
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
        let changes = planned(&args, ctx).await?;
        let sides: Vec<(&str, &str)> = changes
            .iter()
            .map(|c| {
                (
                    c.old.as_deref().unwrap_or(""),
                    c.new.as_deref().unwrap_or(""),
                )
            })
            .collect();
        as_reviewed(&combined_diff(&changes), &sides, reviewed)?;
        write_changes(pick::picked(changes, pick), ctx).await
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
