//! Tool dispatch (seed 000 §5.3, seed 002 "Tool Execution"): registers the calls of a response, runs
//! them by the policy in [`crate::concurrency`], asks for approval of writes and commands, retries
//! passing failures with backoff, and answers every call exactly once, in call order.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::{FutureExt, StreamExt};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use tunacode_protocol::{AgentEvent, Part, ToolCallPart, ToolStatus};
use tunacode_tools::{
    ImageAttachment, Tool, ToolContext, ToolError, ToolKind, ToolOutput, ToolOutputSink, ToolSet,
};

use crate::approval::{ApprovalDecision, ApprovalRequest, Approver, Gate};
use crate::concurrency::{Segment, plan_segments};
use crate::events::EventSink;
use crate::session::SessionHandle;

mod answer;
mod hooked;
mod hunks;

use answer::Answer;

/// The hunks the user picked of an edit, and the preview they picked them from.
type Picked = (tunacode_protocol::HunkSelection, String);
pub use answer::CANCELLED_ANSWER;
pub(crate) use answer::append_to_answer;

/// The part answering a call: its text, and after it the images the tool returned (a list content,
/// in the shape the original writes), which the provider clients send where the API takes them.
fn tool_return(id: &str, name: &str, text: String, images: &[ImageAttachment]) -> Part {
    let mut part = Part::tool_return(id, name, text);
    if !images.is_empty()
        && let Part::ToolReturn(ret) = &mut part
    {
        let mut items = vec![std::mem::take(&mut ret.content).into_value()];
        items.extend(
            images
                .iter()
                .map(|i| tunacode_protocol::image_item(&i.media_type, &i.data)),
        );
        ret.content = Value::Array(items).into();
    }
    part
}

/// Runs the tool calls of one response.
pub(crate) struct ToolDispatcher {
    pub tools: ToolSet,
    pub ctx: ToolContext,
    pub approver: Arc<dyn Approver>,
    pub events: EventSink,
    pub session: SessionHandle,
    pub max_parallel: usize,
    pub tool_max_retries: u32,
    /// When set (plan mode), write and execute calls are refused with this text.
    pub read_only_reason: Option<String>,
    /// Where each finished result is made durable before it is reported.
    pub results: Option<crate::orchestrator::run_journal::ResultSink>,
    /// The lifecycle hooks around each call (`None`: none is set).
    pub hooks: Option<crate::hooks::EngineToolHooks>,
}

impl ToolDispatcher {
    fn cancel(&self) -> &CancellationToken {
        &self.ctx.cancel
    }

    /// Runs every call and returns their answers in call order.
    pub async fn dispatch(&self, calls: &[ToolCallPart]) -> Vec<Part> {
        {
            let mut session = self.session.lock();
            for call in calls {
                if let Err(e) = session.runtime.tool_registry.register(
                    &call.tool_call_id,
                    &call.tool_name,
                    call.args.to_value(),
                ) {
                    tracing::error!(error = %e, "tool registry");
                }
            }
        }
        let segments = plan_segments(calls, |call| {
            let tool = self.tools.get(&call.tool_name)?;
            Some(match call.args_object() {
                Ok(args) => tool.classify(&args),
                Err(_) => tool.kind(),
            })
        });
        let mut answers = Vec::with_capacity(calls.len());
        for segment in segments {
            let batch_calls = segment.calls();
            self.announce_batch(&batch_calls);
            match segment {
                Segment::Parallel(calls) => {
                    // Futures are built first so the stream's type holds no higher-ranked closure
                    // (which would make the whole request future non-`Send`).
                    // Sub-agents mostly wait on their model: they are bounded by their own
                    // limit (`settings.agents.max_parallel`), not the CPU-sized one.
                    let tasks = calls
                        .iter()
                        .filter(|c| c.tool_name == crate::subagents::host::TASK_TOOL)
                        .count();
                    let runs: Vec<_> = calls.into_iter().map(|call| self.run_one(call)).collect();
                    let results: Vec<Part> = futures::stream::iter(runs)
                        .buffered(self.max_parallel.max(1) + tasks)
                        .collect()
                        .await;
                    answers.extend(results);
                }
                Segment::Exclusive(call) => answers.push(self.run_one(call).await),
            }
        }
        answers
    }

    fn announce_batch(&self, calls: &[&ToolCallPart]) {
        let batch = {
            let mut session = self.session.lock();
            session.runtime.batch_counter += 1;
            session.runtime.batch_counter
        };
        self.events.emit(AgentEvent::ToolBatchStarted {
            batch,
            display: batch_display(calls.iter().map(|c| c.tool_name.as_str()), 3),
            count: calls.len(),
        });
    }

    /// Runs one call to its end and records it in the registry and the event stream.
    async fn run_one(&self, call: &ToolCallPart) -> Part {
        let started = Instant::now();
        let answer = self.execute(call).await;
        {
            let mut session = self.session.lock();
            let registry = &mut session.runtime.tool_registry;
            let id = &call.tool_call_id;
            let recorded = match answer.status {
                ToolStatus::Completed => registry.complete(id, &answer.text),
                ToolStatus::Failed => registry.fail(id, &answer.text),
                ToolStatus::Cancelled => registry.cancel(id, &answer.text),
            };
            if let Err(e) = recorded {
                tracing::error!(error = %e, "tool registry");
            }
        }
        if let Some(results) = &self.results {
            results.record(&answer.part).await;
        }
        self.events.emit(AgentEvent::ToolCallFinished {
            tool_call_id: call.tool_call_id.clone(),
            tool_name: call.tool_name.to_string(),
            args: call.args.to_value(),
            result: answer.text,
            duration_ms: started.elapsed().as_millis() as u64,
            status: answer.status,
            diff: answer.diff,
        });
        answer.part
    }

    async fn execute(&self, call: &ToolCallPart) -> Answer {
        let (id, name) = (&call.tool_call_id, &call.tool_name);
        if self.cancel().is_cancelled() {
            return Answer::cancelled(id, name);
        }
        let Some(tool) = self.tools.get(name) else {
            let msg = format!(
                "Unknown tool `{name}`. Available tools: {}.",
                self.tools.names().join(", ")
            );
            return Answer::retry(id, name, msg);
        };
        let args = match call.args_object() {
            Ok(args) => args,
            Err(e) => {
                return Answer::retry(id, name, format!("Invalid arguments for `{name}`: {e}"));
            }
        };
        let prepared = self.pre_hooks(call, args.clone()).await;
        let shown = prepared.as_ref().map_or(&args, |p| &p.args);
        if let Err(e) = self.session.lock().runtime.tool_registry.start(id) {
            tracing::error!(error = %e, "tool registry");
        }
        self.events.emit(AgentEvent::ToolCallStarted {
            tool_call_id: id.clone(),
            tool_name: name.to_string(),
            args: Value::Object(shown.clone()),
            kind: tool.classify(shown),
        });
        let prepared = match prepared {
            Ok(prepared) => prepared,
            Err(reason) => return Answer::failed(id, name, reason),
        };
        let mut answer = self
            .permit_and_run(call, &tool, prepared.args.clone(), prepared.ask)
            .await;
        self.post_hooks(call, &prepared, &mut answer).await;
        answer
    }

    /// Asks what the rules and the user say of a call (a hook may have changed its arguments, or
    /// asked for a question), then runs it.
    async fn permit_and_run(
        &self,
        call: &ToolCallPart,
        tool: &Arc<dyn Tool>,
        args: Map<String, Value>,
        hook_asks: bool,
    ) -> Answer {
        let (id, name) = (&call.tool_call_id, &call.tool_name);
        let changed = ToolCallPart {
            args: Value::Object(args.clone()).into(),
            ..call.clone()
        };
        let picked = match self.permit(&changed, tool, &args, hook_asks).await {
            Ok(picked) => picked,
            Err(refused) => return refused,
        };
        let ctx = self.call_context(id);
        match self
            .call_with_retries(tool.as_ref(), args, &ctx, picked.as_ref())
            .await
        {
            Ok(out) => {
                let mut text = out.content;
                if let Some((selection, reviewed)) = &picked {
                    text = format!("{text}\n\n{}", hunks::review_note(reviewed, selection));
                }
                Answer {
                    part: tool_return(id, name, text.clone(), &out.images),
                    text,
                    status: ToolStatus::Completed,
                    diff: out.diff,
                }
            }
            Err(ToolError::Retry(msg)) => Answer::retry(id, name, msg),
            Err(ToolError::Transient(msg) | ToolError::Fatal(msg)) => {
                Answer::failed(id, name, format!("Error: {msg}"))
            }
            Err(ToolError::Cancelled) => Answer::cancelled(id, name),
        }
    }

    /// What the rules, plan mode and the user say of a call before it runs: `Ok` when it may run
    /// (with the hunks to write, when the user picked them), else the answer the model gets instead.
    async fn permit(
        &self,
        call: &ToolCallPart,
        tool: &Arc<dyn Tool>,
        args: &Map<String, Value>,
        hook_asks: bool,
    ) -> Result<Option<Picked>, Answer> {
        let (id, name) = (&call.tool_call_id, &call.tool_name);
        let gate = self.gate(call).await;
        if let Gate::Refuse(reason) = &gate {
            return Err(Answer::failed(id, name, reason.clone()));
        }
        let kind = tool.classify(args);
        if kind != ToolKind::ReadOnly
            && let Some(reason) = &self.read_only_reason
        {
            return Err(Answer::failed(id, name, reason.clone()));
        }
        if kind != ToolKind::ReadOnly || gate == Gate::Ask || hook_asks {
            match self.ask_approval(call, tool, args, (kind, hook_asks)).await {
                Some(ApprovalDecision::Approve) => {}
                Some(ApprovalDecision::ApproveHunks {
                    selection,
                    reviewed,
                }) => return Ok(Some((selection, reviewed))),
                Some(ApprovalDecision::Deny { reason }) => {
                    let text = format!("The user did not allow this call: {reason}");
                    return Err(Answer::failed(id, name, text));
                }
                None => return Err(Answer::cancelled(id, name)),
            }
        }
        Ok(None)
    }

    /// What the rules say of a call before anything else, judged off the async threads (the rules
    /// resolve the paths a call names, following links).
    async fn gate(&self, call: &ToolCallPart) -> Gate {
        let (approver, name, args) = (
            self.approver.clone(),
            call.tool_name.clone(),
            call.args.to_value(),
        );
        tokio::task::spawn_blocking(move || approver.gate(&name, &args))
            .await
            .unwrap_or_else(|e| Gate::Refuse(format!("internal error: {e}")))
    }

    /// `None` when the request was cancelled while waiting.
    async fn ask_approval(
        &self,
        call: &ToolCallPart,
        tool: &Arc<dyn Tool>,
        args: &Map<String, Value>,
        (kind, hook_asks): (ToolKind, bool),
    ) -> Option<ApprovalDecision> {
        let preview = tool.preview(args, &self.ctx).await.ok().flatten();
        // Where the call's paths lead is read off the async threads (it follows links).
        let targets = {
            let (tool, args, workspace) = (tool.clone(), args.clone(), self.ctx.workspace.clone());
            match tokio::task::spawn_blocking(move || tool.target_paths(&args, &workspace)).await {
                Ok(targets) => targets,
                // Without its targets a protected path could pass unasked: refused instead.
                Err(e) => {
                    return Some(ApprovalDecision::Deny {
                        reason: format!("internal error: {e}"),
                    });
                }
            }
        };
        // An edit's hunks can be picked one by one when its tool can write part of it.
        let hunks = match &preview {
            Some(diff) if tool.picks_hunks() => tunacode_protocol::diff_hunks(diff).len(),
            _ => 0,
        };
        let request = ApprovalRequest {
            tool_call_id: call.tool_call_id.clone(),
            tool_name: call.tool_name.to_string(),
            args: Value::Object(args.clone()),
            kind,
            preview,
            targets,
            hook_asks,
            hunks,
            // A sub-agent's approver labels its requests.
            subagent: None,
        };
        tokio::select! {
            decision = self.approver.approve(&request) => Some(decision),
            _ = self.cancel().cancelled() => None,
        }
    }

    /// The context of call `id`: the dispatcher's, with its output forwarded live as events.
    fn call_context(&self, id: &str) -> ToolContext {
        let events = self.events.clone();
        let id = id.to_string();
        let mut ctx = self.ctx.clone();
        ctx.call_id = id.clone();
        ctx.output = Some(ToolOutputSink::new(move |stream, text| {
            events.emit(AgentEvent::ToolOutput {
                tool_call_id: id.clone(),
                stream,
                text: text.to_string(),
            });
        }));
        ctx
    }

    async fn call_with_retries(
        &self,
        tool: &dyn Tool,
        args: Map<String, Value>,
        ctx: &ToolContext,
        picked: Option<&Picked>,
    ) -> Result<ToolOutput, ToolError> {
        let mut attempt = 0u32;
        loop {
            let run = match picked {
                Some((selection, reviewed)) => {
                    tool.call_picked(args.clone(), ctx, reviewed, selection)
                }
                None => tool.call(args.clone(), ctx),
            };
            // A tool that panics fails its call; the request and the session go on.
            let call = AssertUnwindSafe(run).catch_unwind();
            let crashed = |panic: Box<dyn std::any::Any + Send>| {
                Err(ToolError::Fatal(format!(
                    "the tool crashed: {}",
                    panic_message(panic.as_ref())
                )))
            };
            let result = match tool.stops_itself() {
                true => call.await.unwrap_or_else(crashed),
                false => tokio::select! {
                    r = call => r.unwrap_or_else(crashed),
                    _ = self.cancel().cancelled() => Err(ToolError::Cancelled),
                },
            };
            match result {
                Err(ToolError::Transient(msg)) if attempt < self.tool_max_retries => {
                    attempt += 1;
                    let delay = tool_backoff(attempt);
                    tracing::warn!(tool = tool.name(), attempt, ?delay, error = %msg, "retrying tool");
                    tokio::select! {
                        _ = tokio::time::sleep(delay) => {}
                        _ = self.cancel().cancelled() => return Err(ToolError::Cancelled),
                    }
                }
                other => return other,
            }
        }
    }
}

/// The text of a panic payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

/// Exponential backoff with jitter for passing tool failures: ~200 ms, 400 ms, 800 ms, …
fn tool_backoff(attempt: u32) -> Duration {
    let base = Duration::from_millis(200).saturating_mul(2u32.saturating_pow(attempt - 1));
    let capped = base.min(Duration::from_secs(5));
    capped / 2 + (capped / 2).mul_f64(fastrand::f64())
}

/// Up to `max` tool names, with a suffix when there are more (seed 000 §5.4).
pub fn batch_display<'a>(names: impl Iterator<Item = &'a str>, max: usize) -> String {
    let names: Vec<&str> = names.collect();
    let shown = names
        .iter()
        .take(max)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > max {
        format!("{shown} (+{} more)", names.len() - max)
    } else {
        shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_display_truncates_with_a_suffix() {
        let names = ["read_file", "grep", "glob", "list_dir"];
        assert_eq!(
            batch_display(names.iter().copied(), 3),
            "read_file, grep, glob (+1 more)"
        );
        assert_eq!(
            batch_display(names[..2].iter().copied(), 3),
            "read_file, grep"
        );
    }

    #[test]
    fn tool_backoff_grows_within_bounds() {
        for attempt in 1..6 {
            let full =
                Duration::from_millis(200 * 2u64.pow(attempt - 1)).min(Duration::from_secs(5));
            let d = tool_backoff(attempt);
            assert!(d >= full / 2 && d <= full);
        }
    }
}

#[cfg(test)]
mod retry_tests;
