//! [`ToolRound`]: the dispatch step. Runs one response's tool calls through the dispatcher (the
//! policy asks, the registry tracks, results are journaled as they finish), records their answers,
//! and says what changed: the todo list, a plan presented for approval. The workspace is recorded for
//! rewind before the request's first change ([`TurnPoint`]); the project's checks run around the batch
//! ([`Proof`]).

use tunacode_protocol::{AgentEvent, ToolCallPart};
use tunacode_tools::ToolContext;

use super::offer::callable_tools;
use super::proof::Proof;
use super::request::{Interrupt, Request};
use super::transcript::Transcript;
use super::turn_point::TurnPoint;
use crate::dispatch::ToolDispatcher;

/// The tool step of a request.
#[derive(Debug, Default)]
pub(super) struct ToolRound;

impl ToolRound {
    /// Runs `calls` and appends their answers; the plan presented, when one ends the request.
    pub(super) async fn run(
        &mut self,
        req: &Request<'_>,
        t: &mut Transcript,
        calls: &[ToolCallPart],
        (proof, turn): (&mut Proof, &mut TurnPoint),
    ) -> Result<Option<String>, Interrupt> {
        t.flush(req.agent).await;
        let todos_before = req.agent.session.lock().todos.items();
        let dispatcher = dispatcher(req, t);
        turn.before_batch(req.agent, &req.cancel, (&dispatcher.tools, calls))
            .await;
        proof.before_batch(req, &dispatcher.tools, calls).await?;
        let mut answers = dispatcher.dispatch(calls).await;
        let checked = proof
            .after_batch(req, &dispatcher.tools, calls, &mut answers)
            .await;
        // An answer the checks added to is written whole again (the journal has it without); the
        // answers join the history even when the request was interrupted during the checks (the
        // edits happened).
        let unchanged = matches!(checked, Ok(false));
        let written = dispatcher.results.as_ref().filter(|_| unchanged);
        t.push_answers(written, answers);
        checked?;
        t.flush(req.agent).await;
        let (todos_after, presented) = {
            let session = req.agent.session.lock();
            (
                session.todos.items(),
                session.runtime.plan_awaiting_approval.clone(),
            )
        };
        if todos_after != todos_before {
            req.emit(AgentEvent::TodosUpdated { items: todos_after });
        }
        req.check_cancelled()?;
        Ok(presented)
    }
}

/// The dispatcher of one batch: the tools the model may call now, refusing changes in plan mode.
fn dispatcher(req: &Request, t: &Transcript) -> ToolDispatcher {
    let agent = req.agent;
    let plan_mode = agent.session.lock().plan_mode;
    ToolDispatcher {
        tools: callable_tools(agent),
        ctx: ToolContext {
            workspace: agent.workspace.clone(),
            cancel: req.cancel.clone(),
            exec: agent.exec.clone(),
            output: None,
            call_id: String::new(),
        },
        approver: agent.approver.clone(),
        events: agent.events.clone(),
        session: agent.session.clone(),
        max_parallel: agent.options.max_parallel,
        tool_max_retries: agent.options.tool_max_retries,
        read_only_reason: plan_mode.then(|| PLAN_MODE_REFUSAL.to_string()),
        results: t.result_sink(agent),
        hooks: super::hook_points::tool_hooks(agent, &req.cancel),
    }
}

/// Told to the model when it calls a write or command in plan mode.
const PLAN_MODE_REFUSAL: &str = "Refused: plan mode is read-only. Investigate with the read-only tools, \
    then present your plan with `present_plan`; writes and commands become available once the user \
    approves it.";
