//! [`ModelCall`]: the step that calls the model once per iteration. The request is kept inside the
//! window first (pruning, compaction), made durable before it is sent, streamed, and compacted and
//! sent again once when the provider says the context is too long.

use tunacode_llm::{LlmError, ModelRequest};
use tunacode_protocol::{AgentEvent, NoticeLevel, ToolSpec};

use super::context::ContextKeeper;
use super::offer::{Offer, callable_tools, state_note};
use super::request::{Interrupt, Request};
use super::spend;
use super::transcript::Transcript;
use crate::streaming::{Stream, StreamStop, Streamed};

/// The model call step, the stream it reads, and the tools the request offers (one list for all its
/// calls: a server that comes up mid-request joins at the next one).
#[derive(Debug, Default)]
pub(super) struct ModelCall {
    stream: Stream,
    tools: Option<Vec<ToolSpec>>,
}

/// What this iteration's call is: the final summary (no tools), and the guide's nudge.
pub(super) struct CallPlan {
    /// The call is the summary the user asked for at the limit.
    pub(super) summarizing: bool,
    /// Asks the model to assess its progress, in this call only.
    pub(super) nudge: Option<String>,
}

impl ModelCall {
    /// One model call.
    pub(super) async fn call(
        &mut self,
        req: &Request<'_>,
        t: &mut Transcript,
        context: &mut ContextKeeper,
        plan: CallPlan,
    ) -> Result<Streamed, Interrupt> {
        let offer = Offer::now(req.agent, self.request_tools(req), plan.summarizing);
        let nudge = joined(state_note(req.agent), plan.nudge.clone());
        context.prune_if_worth(req, t, offer.fixed);
        context.compact_if_needed(req, t, offer.fixed).await?;
        let fixed = offer.fixed;
        let mut request = model_request(req, t, offer, nudge.clone());
        req.emit(AgentEvent::ContextUsed {
            tokens: context.next_request_tokens(req, t, fixed),
            window: req.agent.options.context.window,
        });
        let mut retried = false;
        loop {
            // Whatever this call carries is durable before it is sent.
            t.flush(req.agent).await;
            let client = req
                .agent
                .clients
                .get(&req.agent.provider)
                .map_err(Interrupt::Failed)?;
            let asked = request.max_output_tokens.map(u64::from);
            let input = || context.next_request_tokens(req, t, fixed);
            let held = spend::hold(req, input, asked).await?;
            if let Some(clamp) = held.clamp {
                request.max_output_tokens = Some(u32::try_from(clamp).unwrap_or(u32::MAX));
            }
            let events = &req.agent.events;
            let received = self
                .stream
                .receive(client.as_ref(), request, &req.cancel, events)
                .await;
            let usage = received.as_ref().ok().and_then(|s| s.usage);
            spend::settle(req, held, usage).await;
            match received {
                Ok(streamed) => return Ok(streamed),
                Err(StreamStop::Cancelled) => return Err(Interrupt::Cancelled),
                Err(StreamStop::Failed(LlmError::ContextOverflow { .. }))
                    if !retried
                        && self.stream.shown_nothing()
                        && context.compact(req, t, None, fixed).await? =>
                {
                    retried = true;
                    let tools = self.tools.as_deref().unwrap_or_default();
                    let offer = Offer::now(req.agent, tools, plan.summarizing);
                    request = model_request(req, t, offer, nudge.clone());
                }
                Err(StreamStop::Failed(e)) => return Err(Interrupt::Failed(e)),
            }
        }
    }

    /// The text the user saw of a response that did not complete.
    pub(super) fn take_partial(&mut self) -> String {
        self.stream.take_partial()
    }

    /// The tools of this request: every callable tool when its first call is made, a change since
    /// the last request said once.
    fn request_tools(&mut self, req: &Request) -> &[ToolSpec] {
        self.tools.get_or_insert_with(|| {
            let specs = callable_tools(req.agent).specs();
            announce_tool_changes(req, &specs);
            specs
        })
    }
}

/// Says which tools joined or left since the last request (the provider's cached prompt starts over
/// from the tool list once).
fn announce_tool_changes(req: &Request, specs: &[ToolSpec]) {
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
fn joined(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}\n\n{b}")),
        (a, b) => a.or(b),
    }
}

/// The request of this call.
fn model_request(
    req: &Request,
    t: &Transcript,
    offer: Offer,
    nudge: Option<String>,
) -> ModelRequest {
    let options = &req.agent.options;
    if nudge.is_some() && options.guidance.show_thoughts {
        req.notice(
            NoticeLevel::Info,
            "Self-evaluation: asking the agent whether the task is complete.".into(),
        );
    }
    ModelRequest {
        model: options.provider_model.clone(),
        system: offer.system,
        messages: t.messages().clone(),
        nudge,
        tools: offer.tools,
        max_output_tokens: options.max_output_tokens,
        temperature: None,
        reasoning: options.reasoning_effort.clone(),
        cache: Some(t.cache()),
    }
}
