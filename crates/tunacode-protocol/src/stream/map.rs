//! Mapping the runtime's events to the public stream-json lines ([`crate::schema`] holds the lines'
//! types): what each event becomes, and which are not shown.

use crate::event::{AgentEvent, ToolStatus};
use crate::mcp::{ServerState, ServerStatus};
use crate::runtime::{
    Question, QuestionKind, Rewound, RuntimeEvent, SubagentChange, SubagentUpdate,
};
use crate::stream::line::Line;
use crate::stream::notice::level_name;
use crate::stream::output::OutputEvent;
use crate::stream::values::{CheckOut, TodoOut, ToolUseOut, UndoneFile, UsageOut, finish_reason};

fn tool_status(status: ToolStatus) -> &'static str {
    match status {
        ToolStatus::Completed => "completed",
        ToolStatus::Failed => "failed",
        ToolStatus::Cancelled => "cancelled",
    }
}

/// The public line for a question the runtime asks.
fn question(q: &Question) -> OutputEvent {
    match &q.kind {
        QuestionKind::Approval(a) => OutputEvent::ApprovalRequested {
            request_id: q.id.clone(),
            tool_call_id: a.tool_call_id.clone(),
            tool_name: a.tool_name.clone(),
            args: a.args.clone(),
            preview: a.preview.clone(),
            reason: a.reason.clone(),
            session_scope: a.scope.to_string(),
            hunks: a.hunks,
            subagent: a.subagent.as_deref().cloned(),
        },
        QuestionKind::IterationLimit(r) => OutputEvent::LimitChoiceRequested {
            request_id: q.id.clone(),
            iterations: r.iterations,
            max_iterations: r.max_iterations,
            summary: r.summary.clone(),
        },
        QuestionKind::Budget(b) => OutputEvent::BudgetRequested {
            request_id: q.id.clone(),
            scope: b.scope.name().to_string(),
            message: b.message.clone(),
            raise_to_usd: b.raise_to_usd,
            raise_to_tokens: b.raise_to_tokens,
        },
        QuestionKind::Loop(l) => OutputEvent::LoopRequested {
            request_id: q.id.clone(),
            repeated: l.repeated.clone(),
            iterations: l.iterations,
        },
        QuestionKind::PlanReview { plan } => OutputEvent::PlanReviewRequested {
            request_id: q.id.clone(),
            plan: plan.clone(),
        },
    }
}

/// The public line for a rewind's report.
fn rewound_line(rewound: &Rewound) -> OutputEvent {
    OutputEvent::Rewound {
        kind: rewound.kind.clone(),
        prompt: rewound.prompt,
        mode: rewound.mode,
        text: rewound.text.clone(),
        files: rewound
            .files
            .iter()
            .map(|file| UndoneFile {
                path: file.path.clone(),
                how: file.action.clone(),
            })
            .collect(),
        kept: rewound.kept.clone(),
        skipped: rewound.skipped.clone(),
        messages_dropped: rewound.messages_dropped,
        notes: rewound.notes.clone(),
    }
}

/// The public line for a fork.
fn forked_line(forked: &crate::runtime::Forked) -> OutputEvent {
    OutputEvent::Forked {
        session_id: forked.session_id.clone(),
        parent: forked.parent.clone(),
        prompt: forked.prompt,
    }
}

/// The public line for a runtime event (`None`: not shown; `RequestEnded` becomes the `result`).
///
/// No line: the MCP server list, project files, budgets and turn lists (asked for by front ends
/// with their own views); a `!` command's live output (scripts cannot start one); a refused key
/// (the request's own error line says it); a server's model list; and the runtime's own
/// bookkeeping (`run` launches without a setup phase: a missing model or key is an error before
/// any line).
pub fn from_runtime(event: &RuntimeEvent) -> Option<OutputEvent> {
    Some(match event {
        RuntimeEvent::Agent(e) => from_agent(e),
        RuntimeEvent::Question(q) => question(q),
        RuntimeEvent::QuestionClosed { id } => OutputEvent::QuestionClosed {
            request_id: id.clone(),
        },
        RuntimeEvent::UserMessage { text, attached } => OutputEvent::UserMessage {
            text: text.clone(),
            attached: attached.clone(),
        },
        RuntimeEvent::Queued { pending } => OutputEvent::Queued { pending: *pending },
        RuntimeEvent::SessionOpened(view) => session_opened(view),
        RuntimeEvent::ModelChanged(m) => OutputEvent::ModelChanged {
            model: m.model.clone(),
        },
        RuntimeEvent::YoloChanged { on } => OutputEvent::YoloChanged { on: *on },
        RuntimeEvent::ShellFinished { command, output } => OutputEvent::ShellFinished {
            command: command.clone(),
            output: output.clone(),
        },
        RuntimeEvent::Permissions(text) => OutputEvent::Permissions { text: text.clone() },
        RuntimeEvent::OpFailed(failure) => OutputEvent::Error {
            message: failure.to_string(),
        },
        // Servers stop as the run ends, after its result line; that is not news to a script.
        RuntimeEvent::McpServer(status) if status.state == ServerState::Stopped => return None,
        RuntimeEvent::McpServer(status) => mcp_server(status),
        RuntimeEvent::McpProjectPending { file, servers } => {
            OutputEvent::notice("warning", crate::mcp::pending_mcp_notice(file, servers))
        }
        RuntimeEvent::ProjectFilePending(pending) => {
            OutputEvent::notice("warning", pending.notice())
        }
        RuntimeEvent::Context(breakdown) => OutputEvent::Context((**breakdown).clone()),
        RuntimeEvent::Rewound(rewound) => rewound_line(rewound),
        RuntimeEvent::Forked(forked) => forked_line(forked),
        RuntimeEvent::Subagent(update) => subagent_line(update)?,
        // See the doc above for why these have no line.
        RuntimeEvent::McpServers(_)
        | RuntimeEvent::ProjectFiles { .. }
        | RuntimeEvent::Budget(_)
        | RuntimeEvent::ShellOutput { .. }
        | RuntimeEvent::Turns(_)
        | RuntimeEvent::Exported { .. }
        | RuntimeEvent::CustomCommands(_)
        | RuntimeEvent::KeyRejected { .. }
        | RuntimeEvent::ServerModels { .. }
        | RuntimeEvent::RequestEnded(_)
        | RuntimeEvent::SessionList { .. }
        | RuntimeEvent::SetupNeeded(_)
        | RuntimeEvent::SetupChecked(_)
        | RuntimeEvent::Stopped => return None,
    })
}

/// Every public line of a runtime event, a sub-agent's marked with the parent's call.
pub fn line_of(event: &RuntimeEvent) -> Option<Line<OutputEvent>> {
    let line = Line::new(from_runtime(event)?);
    Some(match event {
        RuntimeEvent::Subagent(update) => line.under(&update.label.parent_tool_call_id),
        _ => line,
    })
}

/// The public line for what a sub-agent did (`None`: an engine event with no line).
fn subagent_line(update: &SubagentUpdate) -> Option<OutputEvent> {
    let label = &update.label;
    Some(match &update.change {
        SubagentChange::Started {
            session_id,
            model,
            worktree,
        } => OutputEvent::SubagentStarted {
            tool_call_id: label.parent_tool_call_id.clone(),
            agent_type: label.agent_type.clone(),
            description: label.description.clone(),
            session_id: session_id.clone(),
            model: model.clone(),
            worktree: worktree.clone(),
        },
        SubagentChange::Event(event) => from_agent(event),
        SubagentChange::Finished(report) => OutputEvent::SubagentFinished {
            tool_call_id: label.parent_tool_call_id.clone(),
            agent_type: label.agent_type.clone(),
            session_id: report.session_id.clone(),
            status: report.status,
            answer: report.answer.clone(),
            error: report.error.clone(),
            files_read: report.files_read.clone(),
            files_changed: report.files_changed.clone(),
            commands: report.commands.clone(),
            usage: UsageOut::from(&report.usage),
            duration_ms: report.duration_ms,
            diff: report.diff.clone(),
            diff_outcome: report.diff_outcome.clone(),
        },
    })
}

/// The public line for an opened session.
fn session_opened(view: &crate::runtime::SessionView) -> OutputEvent {
    OutputEvent::SessionOpened {
        session_id: view.session_id.clone(),
        model: view.model.model.clone(),
        resumed: view.resumed,
        message_count: view.messages.len(),
    }
}

/// The public line for an MCP server's status.
fn mcp_server(status: &ServerStatus) -> OutputEvent {
    OutputEvent::McpServer {
        name: status.name.clone(),
        state: status.state.label(),
        error: status.state.error().map(str::to_string),
        protocol: status.protocol.clone(),
        tools: status.tools.clone(),
    }
}

/// The public line for an engine event.
pub fn from_agent(event: &AgentEvent) -> OutputEvent {
    match event.clone() {
        AgentEvent::RequestStarted {
            request_id,
            model,
            session_id,
        } => OutputEvent::RequestStarted {
            request_id,
            model,
            session_id,
        },
        AgentEvent::IterationStarted {
            iteration,
            max_iterations,
        } => OutputEvent::IterationStarted {
            iteration,
            max_iterations,
        },
        AgentEvent::TextDelta { text } => OutputEvent::TextDelta { text },
        AgentEvent::ThinkingDelta { text } => OutputEvent::ThinkingDelta { text },
        other => tool_line(other),
    }
}

/// The lines of tool calls: batches, starts, output while they run, ends.
fn tool_line(event: AgentEvent) -> OutputEvent {
    match event {
        AgentEvent::ToolBatchStarted {
            batch,
            display,
            count,
        } => OutputEvent::ToolBatchStarted {
            batch,
            display,
            count,
        },
        AgentEvent::ToolCallStarted {
            tool_call_id,
            tool_name,
            args,
            ..
        } => OutputEvent::ToolCallStarted {
            tool_call_id,
            tool_name,
            args,
        },
        AgentEvent::ToolCallFinished {
            tool_call_id,
            tool_name,
            args,
            result,
            duration_ms,
            status,
            ..
        } => OutputEvent::ToolCallFinished {
            tool_call_id,
            tool_name,
            args,
            result,
            duration_ms,
            status: tool_status(status),
        },
        AgentEvent::ToolOutput {
            tool_call_id,
            stream,
            text,
        } => OutputEvent::ToolOutput {
            tool_call_id,
            stream: stream.name(),
            text,
        },
        other => from_agent_rest(other),
    }
}

/// The lines of progress and state: notices, usage, the limit, context, todos, plans.
fn from_agent_rest(event: AgentEvent) -> OutputEvent {
    match event {
        AgentEvent::Notice { level, message } => OutputEvent::notice(level_name(level), message),
        AgentEvent::UsageUpdated {
            last_call,
            session_total,
        } => OutputEvent::UsageUpdated {
            last_call: (&last_call).into(),
            session_total: (&session_total).into(),
        },
        AgentEvent::IterationLimitReached {
            iterations,
            max_iterations,
            tools_used,
            original_query,
            summary,
        } => OutputEvent::IterationLimitReached {
            iterations,
            max_iterations,
            tools_used: tools_used
                .into_iter()
                .map(|t| ToolUseOut {
                    name: t.name,
                    count: t.count,
                })
                .collect(),
            original_query,
            summary,
        },
        AgentEvent::FallbackResponse { text } => OutputEvent::FallbackResponse { text },
        AgentEvent::ContextUsed { tokens, window } => OutputEvent::ContextUsed { tokens, window },
        AgentEvent::ContextCompacted {
            tokens_before,
            tokens_after,
            compacted_messages,
        } => OutputEvent::ContextCompacted {
            tokens_before,
            tokens_after,
            compacted_messages,
        },
        AgentEvent::TodosUpdated { items } => OutputEvent::TodosUpdated {
            items: items.iter().map(TodoOut::from).collect(),
        },
        AgentEvent::PlanModeChanged { active } => OutputEvent::PlanModeChanged { active },
        AgentEvent::PlanPresented { plan } => OutputEvent::PlanPresented { plan },
        other => end_line(other),
    }
}

/// The lines that end a request.
fn end_line(event: AgentEvent) -> OutputEvent {
    match event {
        AgentEvent::RequestFinished {
            reason,
            iterations,
            response,
        } => OutputEvent::RequestFinished {
            reason: finish_reason(reason),
            iterations,
            response,
        },
        AgentEvent::RequestAborted { partial_text } => OutputEvent::RequestAborted { partial_text },
        AgentEvent::RequestTimedOut { timeout_secs } => {
            OutputEvent::RequestTimedOut { timeout_secs }
        }
        AgentEvent::RequestFailed { kind, message } => OutputEvent::RequestFailed { kind, message },
        AgentEvent::CheckFinished { phase, check } => OutputEvent::CheckFinished {
            phase: phase.name(),
            check: CheckOut::from(&check),
        },
        // The first kinds are mapped by `from_agent`.
        other => from_agent(&other),
    }
}
