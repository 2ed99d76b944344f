//! The language servers around a batch of edits: before it, each edited file's diagnostics as it is
//! (what "new" is measured against); after it, the errors each server reports that were not there,
//! as text for the last edit's result. A cancelled request stops waiting for them.

use std::path::PathBuf;

use super::request::Request;

/// Gives the servers the files about to be edited, as they are.
pub(super) async fn before_edits(req: &Request<'_>, targets: &[PathBuf]) {
    let Some(lsp) = &req.agent.lsp else {
        return;
    };
    for path in targets.iter().filter(|p| lsp.covers(p)) {
        tokio::select! {
            _ = lsp.before_edit(path) => {}
            _ = req.cancel.cancelled() => return,
        }
    }
}

/// What the servers say of the `edited` files now: their new errors, if any (or that a server did
/// not answer in time).
pub(super) async fn after_edits(req: &Request<'_>, edited: &[PathBuf]) -> Option<String> {
    let lsp = req.agent.lsp.as_ref()?;
    let covered: Vec<PathBuf> = edited.iter().filter(|p| lsp.covers(p)).cloned().collect();
    if covered.is_empty() {
        return None;
    }
    let report = tokio::select! {
        report = lsp.after_edit(&covered) => report,
        _ = req.cancel.cancelled() => return None,
    };
    report.describe(req.agent.workspace.root())
}
