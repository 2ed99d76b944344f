//! Running an event's hooks: each one, in order, with the event as JSON on its stdin (Claude Code's
//! fields: `session_id`, `transcript_path`, `cwd`, `hook_event_name`, `permission_mode` and the
//! event's own), `CLAUDE_PROJECT_DIR` (and `TUNACODE_PROJECT_DIR`) set, the user's hooks as the
//! user's commands and a repository's in the sandbox.

use std::path::PathBuf;

use serde_json::{Map, Value, json};
use tunacode_store::HookEvent;
use tunacode_tools::{ToolContext, run_with_input};

use super::set::HookSet;
use super::verdict::Verdict;

/// What every hook of a session is told, and where hooks run.
#[derive(Debug, Clone)]
pub struct HookContext {
    /// The hooks in force.
    pub hooks: std::sync::Arc<HookSet>,
    /// The session.
    pub session_id: String,
    /// The session's file, when it has one.
    pub transcript_path: Option<PathBuf>,
    /// `default`, `plan` or `bypassPermissions` (yolo).
    pub permission_mode: &'static str,
    /// The workspace, the commands' exec policy, and the cancellation of the work they belong to.
    pub tool_ctx: ToolContext,
}

/// Runs the hooks of `event` matching `subject` with the event's own `fields`; what they said.
pub async fn run_event(
    ctx: &HookContext,
    event: HookEvent,
    subject: &[&str],
    fields: Map<String, Value>,
) -> Verdict {
    let mut verdict = Verdict::default();
    let hooks = ctx.hooks.for_event(event, subject);
    if hooks.is_empty() {
        return verdict;
    }
    let root = ctx.tool_ctx.workspace.root().to_path_buf();
    let mut input = json!({
        "session_id": ctx.session_id,
        "transcript_path": ctx.transcript_path,
        "cwd": root,
        "hook_event_name": event.name(),
        "permission_mode": ctx.permission_mode,
    });
    if let Value::Object(map) = &mut input {
        map.extend(fields);
    }
    let bytes = input.to_string().into_bytes();
    let project = root.to_string_lossy().into_owned();
    for hook in hooks {
        let env = vec![
            ("CLAUDE_PROJECT_DIR".to_string(), project.clone()),
            ("TUNACODE_PROJECT_DIR".to_string(), project.clone()),
        ];
        let limits = (hook.timeout_secs, hook.confined);
        let run = run_with_input(&hook.command, bytes.clone(), limits, env, &ctx.tool_ctx).await;
        verdict.absorb(event, hook, run.map_err(|e| e.to_string()));
    }
    verdict
}
