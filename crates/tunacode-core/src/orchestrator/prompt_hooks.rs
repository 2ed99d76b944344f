//! The hooks at the edges of a request: `UserPromptSubmit` before the prompt joins the history (a
//! hook may block it, which ends the request with nothing sent, or add context after it, with what a
//! `SessionStart` hook said when the session opened), and `Stop` when the model is about to end (a
//! hook may send it back to work with its reason, up to [`MAX_STOP_BLOCKS`] times in a row).

use serde_json::Value;

use super::hook_points::{field, run_hooks};
use super::request::Request;
use crate::error::RequestError;
use crate::hooks::HookEvent;

/// How many times in a request `Stop` hooks may send the model back before it ends anyway.
pub(super) const MAX_STOP_BLOCKS: u32 = 5;

/// Runs the `UserPromptSubmit` hooks of the request's message; the context to add after it (the
/// session's start context first), or the block.
pub(super) async fn submitted(req: &Request<'_>) -> Result<Vec<String>, RequestError> {
    if req.message.is_empty() {
        return Ok(Vec::new());
    }
    let mut context: Vec<String> = std::mem::take(&mut req.agent.session.lock().start_context)
        .into_iter()
        .map(|c| format!("[SessionStart hook]\n{c}"))
        .collect();
    let fields = field("prompt", req.message.clone());
    let verdict = run_hooks(
        req.agent,
        &req.cancel,
        HookEvent::UserPromptSubmit,
        (&[], fields),
    )
    .await;
    if let Some(reason) = verdict.block {
        return Err(RequestError::PromptBlocked(reason));
    }
    context.extend(
        verdict
            .context
            .into_iter()
            .map(|c| format!("[UserPromptSubmit hook]\n{c}")),
    );
    Ok(context)
}

/// Runs the `Stop` hooks as the model ends with `response`; the reason to go on, when one blocks.
pub(super) async fn stopping(req: &Request<'_>, response: &str, active: bool) -> Option<String> {
    let mut fields = field("stop_hook_active", active);
    fields.insert("last_assistant_message".into(), Value::from(response));
    let verdict = run_hooks(req.agent, &req.cancel, HookEvent::Stop, (&[], fields)).await;
    verdict.block
}
