//! Where a request meets the lifecycle hooks: the context every hook of the request runs with, the
//! tool hooks the dispatcher calls, `UserPromptSubmit` before the prompt joins the history, `Stop`
//! when the model is about to end, and `PreCompact` before a compaction.

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use tunacode_protocol::{AgentEvent, NoticeLevel};
use tunacode_tools::ToolContext;

use crate::agent::Agent;
use crate::hooks::{EngineToolHooks, HookContext, HookEvent, Verdict, run_event};

/// The context the hooks of `agent`'s session run with, cancelled with `cancel`.
pub(crate) fn hook_context(agent: &Agent, cancel: CancellationToken) -> HookContext {
    let (session_id, project_id, plan_mode) = {
        let s = agent.session.lock();
        (s.id.clone(), s.project_id.clone(), s.plan_mode)
    };
    // The session's file, where it is saved (it may not be written yet).
    let transcript_path = agent
        .store
        .as_ref()
        .map(|store| store.path_of(&project_id, &session_id));
    HookContext {
        hooks: agent.options.hooks.clone(),
        session_id,
        transcript_path,
        permission_mode: if plan_mode { "plan" } else { "default" },
        tool_ctx: ToolContext {
            workspace: agent.workspace.clone(),
            cancel,
            exec: agent.exec.clone(),
            output: None,
            call_id: String::new(),
        },
    }
}

/// The tool hooks of a request, when any is set.
pub(crate) fn tool_hooks(agent: &Agent, cancel: &CancellationToken) -> Option<EngineToolHooks> {
    let set = &agent.options.hooks;
    if !set.has(HookEvent::PreToolUse) && !set.has(HookEvent::PostToolUse) {
        return None;
    }
    let hooks = EngineToolHooks {
        ctx: hook_context(agent, cancel.clone()),
        events: agent.events.clone(),
    };
    hooks.any().then_some(hooks)
}

/// Runs `event`'s hooks for `agent` with the event's `fields`; their failures are said.
pub(crate) async fn run_hooks(
    agent: &Agent,
    cancel: &CancellationToken,
    event: HookEvent,
    (subject, fields): (&[&str], Map<String, Value>),
) -> Verdict {
    if !agent.options.hooks.has(event) {
        return Verdict::default();
    }
    let ctx = hook_context(agent, cancel.clone());
    let verdict = run_event(&ctx, event, subject, fields).await;
    for message in &verdict.notices {
        agent.events.emit(AgentEvent::Notice {
            level: NoticeLevel::Warning,
            message: message.clone(),
        });
    }
    verdict
}

/// A single field for an event's JSON.
pub(crate) fn field(key: &str, value: impl Into<Value>) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert(key.to_string(), value.into());
    map
}
