//! Checking a patch against the workspace (every path located once, links and secrets refused, no
//! path touched twice) and writing it beneath the workspace root with no link followed.

use std::path::{Path, PathBuf};

use super::apply::apply_hunks;
use super::change::Change;
use super::parse::{FileOp, parse_patch};
use crate::beneath::Beneath;
use crate::fsutil::io_error;
use crate::tool::ToolContext;
use crate::tool_error::ToolError;
use crate::workspace::{Located, Workspace};

/// The paths a patch touches, each with what is done to it, to refuse one touched twice.
#[derive(Default)]
struct Touched(Vec<(PathBuf, &'static str)>);

impl Touched {
    /// Records that `what` is done to `at`; a path already touched is refused, since the operations
    /// would run over each other (an added file moved onto, an updated file deleted, …).
    fn touch(&mut self, at: &Located, what: &'static str, ws: &Workspace) -> Result<(), ToolError> {
        let same = |p: &PathBuf| *p == at.real || *p == at.lexical;
        if let Some((_, first)) = self.0.iter().find(|(p, _)| same(p)) {
            return Err(ToolError::Retry(format!(
                "`{}` is touched twice in the patch ({first}, then {what}); give each file one \
                 operation; nothing was changed",
                ws.display(&at.real)
            )));
        }
        self.0.push((at.real.clone(), what));
        if at.lexical != at.real {
            self.0.push((at.lexical.clone(), what));
        }
        Ok(())
    }
}

/// Every path the patch names (moves' targets included), as asked.
pub(super) fn target_paths(input: &str, ws: &Workspace) -> Vec<PathBuf> {
    let Ok(ops) = parse_patch(input) else {
        return Vec::new();
    };
    let mut paths = Vec::new();
    for op in &ops {
        let (path, move_to) = match op {
            FileOp::Add { path, .. } | FileOp::Delete { path } => (path, None),
            FileOp::Update { path, move_to, .. } => (path, move_to.as_ref()),
        };
        paths.extend(ws.lexical(path));
        paths.extend(move_to.and_then(|to| ws.lexical(to)));
    }
    paths
}

/// Checks every operation of the patch against the workspace and computes the new contents.
/// Blocks (it reads files): run it on a blocking thread.
pub(super) fn plan(input: &str, ctx: &ToolContext) -> Result<Vec<Change>, ToolError> {
    let ws = &ctx.workspace;
    let ops = parse_patch(input).map_err(|e| ToolError::Retry(format!("invalid patch: {e}")))?;
    let beneath = Beneath::new(ws.root()).map_err(|e| io_error(".", e))?;
    let mut touched = Touched::default();
    let mut changes: Vec<Change> = Vec::new();
    for op in ops {
        let path_text = match &op {
            FileOp::Add { path, .. } | FileOp::Delete { path } | FileOp::Update { path, .. } => {
                path
            }
        };
        let at = ws.locate(path_text)?;
        ws.refuse_change(&at)?;
        let shown = ws.display(&at.real);
        let change = match op {
            FileOp::Add { lines, .. } => {
                touched.touch(&at, "added", ws)?;
                if std::fs::symlink_metadata(&at.real).is_ok() {
                    return Err(ToolError::Retry(format!(
                        "`{shown}` already exists: use `*** Update File:`; nothing was changed"
                    )));
                }
                let mut text = lines.join("\n");
                text.push('\n');
                Change::new(at, shown, None, Some(text), None)
            }
            FileOp::Delete { .. } => {
                touched.touch(&at, "deleted", ws)?;
                let old = read(&beneath, ws, &at, &shown)?;
                Change::new(at, shown, Some(old), None, None)
            }
            FileOp::Update { move_to, hunks, .. } => {
                touched.touch(&at, "updated", ws)?;
                let old = read(&beneath, ws, &at, &shown)?;
                let new = apply_hunks(&old, &hunks, &shown).map_err(ToolError::Retry)?;
                let move_to = match move_to {
                    Some(to) => Some(move_target(&to, &shown, ws, &mut touched)?),
                    None => None,
                };
                Change::new(at, shown, Some(old), Some(new), move_to)
            }
        };
        changes.push(change);
    }
    Ok(changes)
}

/// Where a file is moved to: inside, not a link, not a secret, not there yet, touched once.
fn move_target(
    to: &str,
    from: &str,
    ws: &Workspace,
    touched: &mut Touched,
) -> Result<(Located, String), ToolError> {
    let target = ws.locate(to)?;
    ws.refuse_change(&target)?;
    touched.touch(&target, "the target of a move", ws)?;
    let to_shown = ws.display(&target.real);
    if std::fs::symlink_metadata(&target.real).is_ok() {
        return Err(ToolError::Retry(format!(
            "cannot move `{from}` to `{to_shown}`: it exists; nothing was changed"
        )));
    }
    Ok((target, to_shown))
}

/// The text of the file `at`, read beneath the root with no link followed.
fn read(beneath: &Beneath, ws: &Workspace, at: &Located, shown: &str) -> Result<String, ToolError> {
    match beneath.read_regular(ws.relative(at)) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| {
            ToolError::Retry(format!(
                "`{shown}` is not UTF-8 text; only text files can be patched; nothing was changed"
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(ToolError::Retry(format!(
            "`{shown}` does not exist; nothing was changed"
        ))),
        Err(e) => Err(io_error(shown, e)),
    }
}

/// Writes the planned changes beneath the root: new files (and their folders) with `O_EXCL`,
/// updates atomically in their directory, deletes and moves without following a link. Blocks.
pub(super) fn write(changes: &[Change], ws: &Workspace) -> Result<(), ToolError> {
    let beneath = Beneath::new(ws.root()).map_err(|e| io_error(".", e))?;
    let rel = |at: &Located| -> PathBuf { ws.relative(at).to_path_buf() };
    for change in changes {
        let (source, shown) = (rel(&change.at), change.shown.as_str());
        match (&change.old, &change.new, &change.move_to) {
            (_, None, _) => beneath.remove(&source).map_err(|e| io_error(shown, e))?,
            (None, Some(text), _) => create(&beneath, &source, text, shown)?,
            (Some(_), Some(text), None) => beneath
                .replace(&source, text.as_bytes())
                .map_err(|e| io_error(shown, e))?,
            (Some(_), Some(text), Some((target, to_shown))) => {
                create(&beneath, &rel(target), text, to_shown)?;
                beneath.remove(&source).map_err(|e| io_error(shown, e))?;
            }
        }
    }
    Ok(())
}

fn create(beneath: &Beneath, rel: &Path, text: &str, shown: &str) -> Result<(), ToolError> {
    beneath
        .create_new(rel, text.as_bytes())
        .map_err(|e| io_error(shown, e))
}
