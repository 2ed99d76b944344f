//! A writer sub-agent's changes come back to the parent's workspace only through the ordinary
//! approval: the runtime's one policy judges them as the `apply_patch` of every changed path (its
//! rules on `write_file`/`update_file` and `apply_patch`, the protected paths asked every time,
//! yolo and allowances as usual, refused headless), the user sees the diff, and an approved change
//! is written whole or not at all: every file must still hold what the sub-agent started from
//! (else nothing is written and the parent is told which file changed meanwhile), secret paths are
//! refused, and each file is written beneath the root with no link followed.

use std::path::PathBuf;

use serde_json::json;
use tunacode_protocol::ToolKind;
use tunacode_protocol::runtime::SubagentLabel;
use tunacode_tools::Workspace;

use super::worktree::{Changed, Changes};
use crate::agent::Agent;
use crate::approval::{ApprovalDecision, ApprovalRequest, Gate};

/// Offers `changes` to the parent's workspace; what became of them, in words.
pub(super) async fn offer(
    parent: &Agent,
    label: &SubagentLabel,
    changes: Changes,
    (call_id, writing): (&str, std::sync::Arc<tokio::sync::Mutex<()>>),
) -> String {
    let decided = match changes.files.is_empty() {
        true => Err("nothing to apply.".to_string()),
        false => decide(parent, label, &changes, call_id).await,
    };
    let mut outcome = match decided {
        Err(refused) => refused,
        Ok(()) => {
            let workspace = parent.workspace.clone();
            let files = changes.files;
            // One writer's check and write at a time: two cannot both find the file as it was.
            let _alone = writing.lock_owned().await;
            tokio::task::spawn_blocking(move || write_all(&workspace, &files))
                .await
                .unwrap_or_else(|e| Err(e.to_string()))
                .unwrap_or_else(|why| format!("not applied: {why}"))
        }
    };
    if !changes.not_applied.is_empty() {
        outcome.push_str(&format!(
            " Never applied: {}.",
            changes.not_applied.join(", ")
        ));
    }
    outcome
}

/// The policy's and the user's word on writing `changes`.
async fn decide(
    parent: &Agent,
    label: &SubagentLabel,
    changes: &Changes,
    call_id: &str,
) -> Result<(), String> {
    let args = json!({"input": patch_outline(&changes.files)});
    match parent.approver.gate("apply_patch", &args) {
        Gate::Refuse(why) => return Err(format!("refused by a rule: {why}")),
        Gate::Ask | Gate::Pass => {}
    }
    let root = parent.workspace.root();
    let request = ApprovalRequest {
        tool_call_id: call_id.to_string(),
        tool_name: "apply_patch".into(),
        args,
        kind: ToolKind::Write,
        preview: Some(changes.diff.clone()),
        targets: changes.files.iter().map(|f| root.join(&f.path)).collect(),
        hook_asks: false,
        hunks: 0,
        subagent: Some(label.clone()),
    };
    match parent.approver.approve(&request).await {
        ApprovalDecision::Approve => Ok(()),
        ApprovalDecision::Deny { reason } => Err(format!("rejected: {reason}")),
        ApprovalDecision::ApproveHunks { .. } => {
            Err("not applied: a sub-agent's changes are taken whole".into())
        }
    }
}

/// The paths of `files` as an `apply_patch` input names them (what the policy's rules judge).
fn patch_outline(files: &[Changed]) -> String {
    let mut text = String::from("*** Begin Patch\n");
    for file in files {
        let verb = match (&file.before, &file.after) {
            (None, _) => "Add",
            (_, None) => "Delete",
            _ => "Update",
        };
        text.push_str(&format!("*** {verb} File: {}\n", file.path.display()));
    }
    text.push_str("*** End Patch\n");
    text
}

/// Writes every file, once each was checked to hold what the sub-agent started from.
fn write_all(workspace: &Workspace, files: &[Changed]) -> Result<String, String> {
    let root = workspace.root().to_path_buf();
    for file in files {
        let display = file.path.display();
        if workspace
            .secrets()
            .reason_for(&root.join(&file.path))
            .is_some()
        {
            return Err(format!("{display} is a secret path"));
        }
        let now = current(&root, &file.path)?;
        if now != file.before {
            return Err(format!(
                "{display} changed in the workspace since the sub-agent started; its diff is in \
                 this result"
            ));
        }
    }
    let mut written = Vec::new();
    for file in files {
        tunacode_tools::restore_workspace_file(
            &root,
            &file.path,
            file.after.as_deref(),
            file.executable,
        )
        .map_err(|e| {
            format!(
                "{}: {e} (written before it: {})",
                file.path.display(),
                list(&written)
            )
        })?;
        written.push(file.path.clone());
    }
    Ok(format!("applied to the workspace: {}.", list(&written)))
}

/// What `rel` holds in the workspace now (`None`: nothing), read with no link followed.
fn current(root: &std::path::Path, rel: &std::path::Path) -> Result<Option<Vec<u8>>, String> {
    match tunacode_tools::read_workspace_file(root, rel) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", rel.display())),
    }
}

fn list(paths: &[PathBuf]) -> String {
    match paths.is_empty() {
        true => "none".into(),
        false => paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
    }
}
