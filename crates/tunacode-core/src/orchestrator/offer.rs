//! [`Offer`]: what a model call carries besides the history, kept byte-identical through a session so
//! the provider's prompt cache keeps hitting. The system prompt is the composed prompt alone and the
//! tools are one list in a stable order for the whole request (every tool, the plan tools included:
//! plan mode refuses changes at dispatch rather than hiding tools). What changes during a session
//! (plan mode, the todo list) travels as a note joined to the newest turn of that call only.

use std::sync::Arc;

use tunacode_protocol::{NoticeLevel, ToolSpec};
use tunacode_tools::ToolSet;

use crate::agent::Agent;
use crate::compaction::tools_tokens;
use crate::plan_tools::{ExitPlanMode, PresentPlan};
use crate::subagents::task_tool::TaskTool;

/// The fixed parts of one model call.
pub(super) struct Offer {
    /// The system prompt.
    pub(super) system: String,
    /// The offered tools' specs.
    pub(super) tools: Arc<[ToolSpec]>,
    /// Their token estimate (small: the estimate loads no tokenizer).
    pub(super) fixed: u64,
}

/// The tools a request offers, shared by all its calls, with their token estimate (counted once).
#[derive(Debug)]
pub(super) struct OfferedTools {
    specs: Arc<[ToolSpec]>,
    tokens: u64,
}

impl OfferedTools {
    /// `specs`, counted.
    pub(super) fn new(specs: Vec<ToolSpec>) -> Self {
        let tokens = tools_tokens(&specs, crate::tokens::TokenCounter::Estimate);
        OfferedTools {
            specs: specs.into(),
            tokens,
        }
    }
}

impl Offer {
    /// What a call carries: the request's `tools`, none for the final summary the user asked for.
    pub(super) fn now(agent: &Agent, tools: &OfferedTools, summarizing: bool) -> Self {
        let system = agent.options.system_prompt.clone();
        let (tools, tools_tokens) = if summarizing {
            (Arc::from([]), 0)
        } else {
            (tools.specs.clone(), tools.tokens)
        };
        let fixed = crate::tokens::TokenCounter::Estimate.count(&system) + tools_tokens;
        Offer {
            system,
            tools,
            fixed,
        }
    }
}

/// Every tool the model may call now (the fixed ones, those of MCP servers in name order, and the plan
/// tools), in a stable order.
pub(super) fn callable_tools(agent: &Agent) -> ToolSet {
    let mut tools = agent.current_tools();
    // A sub-agent has only the tools its type gave it.
    if agent.subagent.is_some() {
        return tools;
    }
    if let Some(host) = &agent.subagents {
        let parent = agent.with_session(agent.session.clone(), agent.tools.clone());
        tools.add(Arc::new(TaskTool::new(parent, host.clone())));
    }
    tools.add(Arc::new(PresentPlan {
        approver: agent.approver.clone(),
        session: agent.session.clone(),
        events: agent.events.clone(),
    }));
    tools.add(Arc::new(ExitPlanMode {
        session: agent.session.clone(),
        events: agent.events.clone(),
    }));
    tools
}

/// The state of the session the model must know on this call (plan mode, the current todos), as a
/// note joined to the newest turn, never to the system prompt.
pub(super) fn state_note(agent: &Agent) -> Option<String> {
    let session = agent.session.lock();
    let mut note = Vec::new();
    if session.plan_mode {
        note.push(PLAN_MODE_NOTE.to_string());
    }
    if let Some(todos) = session.todos.render() {
        note.push(format!("# Current todos\n{todos}"));
    }
    (!note.is_empty()).then(|| note.join("\n\n"))
}

/// Said on each call while plan mode is on.
const PLAN_MODE_NOTE: &str = "# Plan mode\nYou are in plan mode: investigate with the read-only \
    tools, then call `present_plan` with a complete implementation plan in markdown. Do not try to write \
    files or run commands: they are refused until the user approves the plan. Call `exit_plan_mode` if the \
    task needs no plan.";

/// Says which tools joined or left since the last request (the provider's cached prompt starts over
/// from the tool list once).
pub(super) fn announce_tool_changes(req: &super::request::Request, specs: &[ToolSpec]) {
    let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
    let before = std::mem::replace(
        &mut req.agent.session.lock().runtime.offered_tools,
        names.clone(),
    );
    if before.is_empty() || before == names {
        return;
    }
    let joined: Vec<&str> = names
        .iter()
        .filter(|n| !before.contains(n))
        .map(String::as_str)
        .collect();
    let left: Vec<&str> = before
        .iter()
        .filter(|n| !names.contains(n))
        .map(String::as_str)
        .collect();
    let mut said = Vec::new();
    if !joined.is_empty() {
        said.push(format!("offered from now on: {}", joined.join(", ")));
    }
    if !left.is_empty() {
        said.push(format!("no longer offered: {}", left.join(", ")));
    }
    if !said.is_empty() {
        req.notice(
            NoticeLevel::Info,
            format!(
                "Tools changed since the last request ({}).",
                said.join("; ")
            ),
        );
    }
}

/// Two notes joined (either may be absent).
pub(super) fn joined(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}\n\n{b}")),
        (a, b) => a.or(b),
    }
}
