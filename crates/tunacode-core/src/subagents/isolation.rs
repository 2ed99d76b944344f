//! Where a sub-agent works: a reader in the parent's workspace, alongside the others; a writer in a
//! git worktree of its own (its file tools confined to it, its commands writing there and not in
//! the parent's workspace), whose changes are offered back when it ends; a writer outside git in
//! the parent's workspace, one at a time.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use tunacode_protocol::runtime::{SubagentLabel, SubagentReport};
use tunacode_protocol::{AgentEvent, NoticeLevel};
use tunacode_tools::{ExecPolicy, ToolError, Workspace};

use super::host::Subagents;
use super::worktree::Worktree;
use crate::agent::Agent;

/// Where one sub-agent works.
pub(super) enum Isolation {
    /// The parent's workspace, shared (a reader).
    Shared,
    /// The parent's workspace, to itself until it ends (a writer outside git).
    Turn {
        /// Held until the sub-agent ends.
        _turn: tokio::sync::OwnedMutexGuard<()>,
    },
    /// A worktree of its own (a writer in git).
    Worktree(Worktree),
}

impl Isolation {
    /// The place for a sub-agent that writes (`writer`) or only reads.
    pub(super) async fn take(
        parent: &Agent,
        host: &Subagents,
        writer: bool,
        cancel: &CancellationToken,
    ) -> Result<Isolation, ToolError> {
        if !writer {
            return Ok(Isolation::Shared);
        }
        let cwd = parent.workspace.root().to_path_buf();
        let secrets = parent.exec.sandbox.secrets.clone();
        let made = tokio::task::spawn_blocking(move || Worktree::create(&cwd, &secrets))
            .await
            .map_err(|e| ToolError::Fatal(e.to_string()))?;
        match made {
            Ok(Some(worktree)) => return Ok(Isolation::Worktree(worktree)),
            Ok(None) => {}
            // Said, then the sub-agent works as it would outside git.
            Err(e) => parent.events.emit(AgentEvent::Notice {
                level: NoticeLevel::Warning,
                message: format!(
                    "No worktree for the sub-agent ({e}): it works in the workspace, one writer \
                     at a time."
                ),
            }),
        }
        let lock = host.writers.clone().lock_owned();
        tokio::select! {
            turn = lock => Ok(Isolation::Turn { _turn: turn }),
            _ = cancel.cancelled() => Err(ToolError::Cancelled),
        }
    }

    /// The worktree's folder, when it has one.
    pub(super) fn worktree_dir(&self) -> Option<String> {
        match self {
            Isolation::Worktree(w) => Some(w.workdir().display().to_string()),
            _ => None,
        }
    }

    /// The workspace and command policy the sub-agent works with: the parent's, or the same
    /// guards with its worktree's protected names added (the parent's stay protected: a workspace
    /// under another writable root, such as the temp dir, keeps its `.git` and instruction files
    /// read-only to the sub-agent's commands) and the parent's working directory no longer
    /// writable.
    pub(super) fn workspace(&self, parent: &Agent) -> (Workspace, Arc<ExecPolicy>) {
        let Isolation::Worktree(worktree) = self else {
            return (parent.workspace.clone(), parent.exec.clone());
        };
        let root = worktree.workdir();
        let mut exec = (*parent.exec).clone();
        let protected = Arc::new(exec.sandbox.protected.with_root(root.clone()));
        let parent_root = parent.workspace.root();
        exec.sandbox.writable_roots.retain(|r| r != parent_root);
        exec.sandbox.writable_roots.insert(0, root.clone());
        exec.sandbox.protected = protected.clone();
        let workspace = Workspace::new(&root)
            .with_secrets(exec.sandbox.secrets.clone())
            .with_protected(protected);
        (workspace, Arc::new(exec))
    }

    /// After the sub-agent ended: a worktree's changes are offered to the parent's workspace
    /// (unless the parent was stopped) and the worktree removed.
    pub(super) async fn finish(
        self,
        (parent, host): (&Agent, &Subagents),
        report: &mut SubagentReport,
        cancel: &CancellationToken,
    ) {
        let Isolation::Worktree(worktree) = self else {
            return;
        };
        let read = tokio::task::spawn_blocking(move || {
            let changes = worktree.changes();
            (worktree, changes)
        })
        .await;
        let (worktree, changes) = match read {
            Ok(read) => read,
            Err(e) => {
                report.diff_outcome = Some(format!("its changes could not be read: {e}"));
                return;
            }
        };
        match changes {
            Ok(changes) if changes.files.is_empty() && changes.not_applied.is_empty() => {}
            Ok(_) if cancel.is_cancelled() => {
                report.diff_outcome = Some("discarded: the request was stopped".into());
            }
            Ok(changes) => {
                report.diff = changes.diff.clone();
                let label: &SubagentLabel = &report.label;
                let call = label.parent_tool_call_id.clone();
                let writing = host.writers.clone();
                let outcome = super::apply::offer(parent, label, changes, (&call, writing)).await;
                report.diff_outcome = Some(outcome);
            }
            Err(e) => report.diff_outcome = Some(format!("its changes could not be read: {e}")),
        }
        let _ = tokio::task::spawn_blocking(move || worktree.remove()).await;
    }
}
