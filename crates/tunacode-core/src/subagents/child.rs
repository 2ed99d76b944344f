//! One sub-agent, from start to report: its engine is built from its parent's (the same clients,
//! workspace, sandbox, store and language servers; the type's tools, model and limits; the
//! parent's policy asking with its label; its events labelled; its budget drawing on the
//! parent's), it runs one request in a child session, and what it did is gathered from that
//! session whether it finished or not.

use std::sync::Arc;
use std::time::Instant;

use tokio_util::sync::CancellationToken;
use tunacode_protocol::runtime::{ForkOrigin, SubagentChange, SubagentLabel, SubagentReport};
use tunacode_store::Cap;
use tunacode_tools::{Tool, ToolContext, ToolError, ToolKind, ToolSet};

use super::approver::SubagentApprover;
use super::host::{Subagents, TASK_TOOL};
use super::isolation::Isolation;
use super::read_only_bash::ReadOnlyCommands;
use super::types::AgentType;
use crate::agent::{Agent, AgentOptions, AgentParts};
use crate::session::{Session, SessionHandle};

/// Tools no sub-agent gets: it cannot start another, and its todo list and plan are its parent's
/// business.
const NOT_FOR_SUBAGENTS: &[&str] = &[TASK_TOOL, "todo", "present_plan", "exit_plan_mode"];

/// What to start.
pub(super) struct ChildRun<'a> {
    pub(super) parent: &'a Agent,
    pub(super) host: &'a Subagents,
    pub(super) agent_type: AgentType,
    pub(super) description: String,
    pub(super) prompt: String,
}

/// Runs one sub-agent to its end (or its parent's cancel) and reports what it did.
pub(super) async fn run_child(
    run: ChildRun<'_>,
    ctx: &ToolContext,
) -> Result<SubagentReport, ToolError> {
    let ChildRun {
        parent,
        host,
        agent_type,
        description,
        prompt,
    } = run;
    let label = SubagentLabel {
        parent_tool_call_id: ctx.call_id.clone(),
        agent_type: agent_type.name.clone(),
        // Shown in the user's questions: no terminal control sequence of the model's.
        description: super::types::plain(&description),
    };
    let tools = child_tools(parent, &agent_type);
    let writer = writes(&tools);
    if writer && parent.session.lock().plan_mode {
        return Err(ToolError::Retry(format!(
            "plan mode is on: a `{}` sub-agent could change files; use `explore` until the plan \
             is approved",
            agent_type.name
        )));
    }
    let options = child_options(parent, host, &agent_type)?;
    let _slot = wait(host.slots.clone().acquire_owned(), &ctx.cancel).await?;
    let place = Isolation::take(parent, host, writer, &ctx.cancel).await?;
    let (child, budget) = build_child(
        parent,
        host,
        &agent_type,
        (options, tools),
        (&label, &place),
    );
    child.events.subagent(SubagentChange::Started {
        session_id: child.session.lock().id.clone(),
        model: child.options.model.clone(),
        worktree: place.worktree_dir(),
    });
    let started = Instant::now();
    let outcome = child
        .process_prompt(&prompt, &prompt, ctx.cancel.child_token())
        .await;
    let mut report = super::report::gather(&child, label, outcome, started.elapsed()).await;
    place.finish((parent, host), &mut report, &ctx.cancel).await;
    // Its spend joins the parent's session (the status line and the session's own caps see it).
    parent.session.lock().usage.session_total.add(&report.usage);
    parent.budget.child_ended(&budget);
    child
        .events
        .subagent(SubagentChange::Finished(Box::new(report.clone())));
    Ok(report)
}

/// Whether any of `tools` can change something (the sub-agent is a writer).
pub(super) fn writes(tools: &ToolSet) -> bool {
    tools.names().iter().any(|name| {
        tools
            .get(name)
            .is_some_and(|t| t.kind() != ToolKind::ReadOnly)
    })
}

/// Waits for `ready` unless the parent is cancelled first.
async fn wait<T, E>(
    ready: impl std::future::Future<Output = Result<T, E>>,
    cancel: &CancellationToken,
) -> Result<T, ToolError> {
    tokio::select! {
        got = ready => got.map_err(|_| ToolError::Fatal("the sub-agents' places are closed".into())),
        _ = cancel.cancelled() => Err(ToolError::Cancelled),
    }
}

/// The sub-agent's tools: its parent's (MCP servers' included) that its type allows, never the
/// ones no sub-agent gets; `bash` runs only read-only commands in a type that cannot otherwise
/// change anything.
pub(super) fn child_tools(parent: &Agent, agent_type: &AgentType) -> ToolSet {
    let allowed = parent
        .current_tools()
        .filtered(|t| !NOT_FOR_SUBAGENTS.contains(&t.name()) && agent_type.allows(t.name()));
    let read_only = allowed
        .names()
        .iter()
        .filter(|name| **name != "bash")
        .all(|name| {
            allowed
                .get(name)
                .is_some_and(|t| t.kind() == ToolKind::ReadOnly)
        });
    let mut tools = allowed.clone();
    if read_only && let Some(bash) = allowed.get("bash") {
        tools.add(Arc::new(ReadOnlyCommands { bash }) as Arc<dyn Tool>);
    }
    tools
}

/// The sub-agent's options: its type's model (else the parent's), the parent's system prompt with
/// the type's own part, its iteration limit.
fn child_options(
    parent: &Agent,
    host: &Subagents,
    agent_type: &AgentType,
) -> Result<(AgentOptions, tunacode_llm::ProviderSettings), ToolError> {
    let (mut options, provider) = match host.models.get(&agent_type.name) {
        Some(Ok(model)) => (model.options.clone(), model.provider.clone()),
        Some(Err(e)) => {
            return Err(ToolError::Fatal(format!(
                "agent type `{}` cannot run: {e}",
                agent_type.name
            )));
        }
        None => (parent.options.clone(), parent.provider.clone()),
    };
    options.system_prompt = format!(
        "{}\n\n# You are a sub-agent ({})\n{}",
        options.system_prompt, agent_type.name, agent_type.prompt
    );
    if let Some(limit) = agent_type.max_iterations {
        options.max_iterations = limit;
    }
    Ok((options, provider))
}

/// The sub-agent's engine over a new child session, and its budget.
fn build_child(
    parent: &Agent,
    host: &Subagents,
    agent_type: &AgentType,
    (options, tools): ((AgentOptions, tunacode_llm::ProviderSettings), ToolSet),
    (label, place): (&SubagentLabel, &Isolation),
) -> (Agent, Arc<crate::budget::Budget>) {
    let (workspace, exec) = place.workspace(parent);
    // The language servers follow the parent's files, not a worktree's.
    let lsp = match place {
        Isolation::Worktree(_) => None,
        _ => parent.lsp.clone(),
    };
    let (options, provider) = options;
    let session = child_session(parent, agent_type, &options.model);
    let cap = agent_type.budget.unwrap_or_else(|| share(parent, host));
    let budget = parent.budget.child(parent.session.clone(), cap);
    let mut child = Agent::new(AgentParts {
        options,
        provider,
        clients: parent.clients.clone(),
        tools,
        dynamic_tools: None,
        workspace,
        exec,
        checkpoints: None,
        approver: Arc::new(SubagentApprover {
            parent: parent.approver.clone(),
            label: label.clone(),
        }),
        session: SessionHandle::new(session),
        store: parent.store.clone(),
        events: parent.events.for_subagent(label.clone()),
        budget: budget.clone(),
        fallbacks: parent.fallbacks.clone(),
        lsp,
    });
    child.subagent = Some(label.clone());
    (child, budget)
}

/// A share of what the parent may still spend, when its budget caps anything.
fn share(parent: &Agent, host: &Subagents) -> Cap {
    let total = parent.session.lock().usage.session_total;
    let spent = tunacode_store::Spend {
        usd: total.cost,
        tokens: total.request_tokens + total.response_tokens,
    };
    parent.budget.share(host.max_parallel, spent)
}

/// A new session linked to the parent's (its `parent` names the parent's session and prompt),
/// starting from a copy of the parent's conversation when the type forks.
fn child_session(parent: &Agent, agent_type: &AgentType, model: &str) -> Session {
    let from = parent.session.lock();
    let mut session = Session::new(std::path::Path::new(&from.working_directory), model);
    session.plan_mode = from.plan_mode;
    if agent_type.fork {
        session.messages = Arc::new(
            from.messages
                .iter()
                .filter(|m| m.in_conversation())
                .cloned()
                .collect(),
        );
    }
    session.tree.parent = Some(ForkOrigin {
        session_id: from.id.clone(),
        prompt: from.tree.nodes.len(),
        subagent: Some(agent_type.name.clone()),
    });
    session
}
