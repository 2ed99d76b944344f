//! [`Offer`]: what a model call carries besides the history (the system prompt, with plan mode and
//! the current todos, and the tools offered now), and the tools a response's calls may use.

use std::sync::Arc;

use tunacode_protocol::ToolSpec;
use tunacode_tools::{ToolKind, ToolSet};

use crate::agent::Agent;
use crate::compaction::fixed_tokens;
use crate::plan_tools::{ExitPlanMode, PresentPlan};

/// The fixed parts of one model call.
pub(super) struct Offer {
    /// The system prompt.
    pub(super) system: String,
    /// The offered tools' specs.
    pub(super) tools: Vec<ToolSpec>,
    /// Their token estimate (small: the estimate loads no tokenizer).
    pub(super) fixed: u64,
}

impl Offer {
    /// What a call carries now; no tools for the final summary the user asked for.
    pub(super) fn now(agent: &Agent, summarizing: bool) -> Self {
        let system = system_prompt(agent);
        let tools = if summarizing {
            Vec::new()
        } else {
            offered_tools(agent).specs()
        };
        let fixed = fixed_tokens(&system, &tools, crate::tokens::TokenCounter::Estimate);
        Offer {
            system,
            tools,
            fixed,
        }
    }
}

/// The tools offered: all of them, or in plan mode the read-only ones and the plan tools.
fn offered_tools(agent: &Agent) -> ToolSet {
    let all = agent.current_tools();
    if !agent.session.lock().plan_mode {
        return all;
    }
    let mut tools = all.filtered(|t| t.kind() == ToolKind::ReadOnly);
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

/// Every tool the model may legitimately call now, so a refused write in plan mode is answered as
/// refused rather than as unknown.
pub(super) fn callable_tools(agent: &Agent) -> ToolSet {
    let mut tools = agent.current_tools();
    let offered = offered_tools(agent);
    for name in offered.names() {
        if tools.get(name).is_none()
            && let Some(t) = offered.get(name)
        {
            tools.add(t);
        }
    }
    tools
}

/// The composed prompt, plus plan mode and the current todos.
fn system_prompt(agent: &Agent) -> String {
    let mut system = agent.options.system_prompt.clone();
    let session = agent.session.lock();
    if session.plan_mode {
        system.push_str(PLAN_MODE_PROMPT);
    }
    if let Some(todos) = session.todos.render() {
        system.push_str(&format!("\n\n# Current todos\n{todos}\n"));
    }
    system
}

/// Added to the system prompt in plan mode.
const PLAN_MODE_PROMPT: &str = "\n\n# Plan mode\nYou are in plan mode: investigate with the read-only \
    tools, then call `present_plan` with a complete implementation plan in markdown. Do not try to write \
    files or run commands: they are refused until the user approves the plan. Call `exit_plan_mode` if the \
    task needs no plan.";
