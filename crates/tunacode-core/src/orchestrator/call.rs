//! [`ModelCall`]: the step that calls the model once per iteration. The request is kept inside the
//! window first (pruning, compaction), made durable before it is sent, streamed, and compacted and
//! sent again once when the provider says the context is too long.

use tunacode_llm::{LlmError, ModelRequest, ProviderSettings};
use tunacode_protocol::{AgentEvent, NoticeLevel};

use super::context::{Cause, ContextKeeper};
use super::offer::{
    Offer, OfferedTools, announce_tool_changes, callable_tools, joined, state_note,
};
use super::request::{Interrupt, Request};
use super::spend;
use super::transcript::Transcript;
use crate::agent::{Agent, AgentOptions};
use crate::streaming::{Stream, StreamStop, Streamed};

/// The model call step, the stream it reads, and the tools the request offers (one list for all its
/// calls: a server that comes up mid-request joins at the next one).
#[derive(Debug, Default)]
pub(super) struct ModelCall {
    stream: Stream,
    tools: Option<OfferedTools>,
    /// 0: the request's own model; `n`: the `n`-th fallback model, for the rest of the request.
    fallback: usize,
}

/// How often one call is asked again after its answer broke off mid-stream.
const MAX_RESUMES: u32 = 2;

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
        if plan.nudge.is_some() && req.agent.options.guidance.show_thoughts {
            req.notice(
                NoticeLevel::Info,
                "Self-evaluation: asking the agent whether the task is complete.".into(),
            );
        }
        let nudge = joined(state_note(req.agent), plan.nudge);
        context.prune_if_worth(req, t, offer.fixed);
        context.compact_if_needed(req, t, offer.fixed).await?;
        let fixed = offer.fixed;
        let mut request = model_request(req, t, offer, nudge.clone());
        req.emit(AgentEvent::ContextUsed {
            tokens: context.next_request_tokens(req, t, fixed),
            window: req.agent.options.context.window,
        });
        let (mut compacted, mut resumed) = (false, 0);
        loop {
            let failed = match self.send(req, t, context, request, fixed).await? {
                Ok(streamed) => return Ok(streamed),
                Err(e) => e,
            };
            let shown_nothing = self.stream.shown_nothing();
            match failed {
                LlmError::ContextOverflow { .. }
                    if !compacted
                        && shown_nothing
                        && context.compact(req, t, Cause::Overflow, fixed).await? =>
                {
                    compacted = true;
                }
                LlmError::Overloaded { .. } if shown_nothing && self.fall_back(req) => {
                    // Messages were serialized for the model that was overloaded's server.
                    t.cache().invalidate_from(0);
                }
                e if e.is_retryable() && self.stream.broke_off() && resumed < MAX_RESUMES => {
                    resumed += 1;
                    self.resume(req, &e);
                }
                e => return Err(Interrupt::Failed(e)),
            }
            let offer = Offer::now(req.agent, self.request_tools(req), plan.summarizing);
            request = model_request(req, t, offer, nudge.clone());
        }
    }

    /// Sends `request` once to the model serving the request: durable first, held against the
    /// budget, streamed, settled. The provider's failure is the inner error.
    async fn send(
        &mut self,
        req: &Request<'_>,
        t: &mut Transcript,
        context: &ContextKeeper,
        mut request: ModelRequest,
        fixed: u64,
    ) -> Result<Result<Streamed, LlmError>, Interrupt> {
        // Whatever this call carries is durable before it is sent.
        t.flush(req.agent).await;
        let (options, provider) = self.serving(req.agent);
        let client = match req.agent.clients.get(provider) {
            Ok(client) => client,
            Err(e) => return Ok(Err(e)),
        };
        // The serving model's own settings (a fallback model has its own name, limits, reasoning).
        request.model = options.provider_model.clone();
        request.max_output_tokens = options.max_output_tokens;
        request.reasoning = options.reasoning_effort.clone();
        request.cache_key = openai_cache_key(req, provider);
        let asked = request.max_output_tokens.map(u64::from);
        let input = || context.next_request_tokens(req, t, fixed);
        let held = spend::hold(req, options, input, asked).await?;
        if let Some(clamp) = held.clamp {
            request.max_output_tokens = Some(u32::try_from(clamp).unwrap_or(u32::MAX));
        }
        let events = &req.agent.events;
        let received = self
            .stream
            .receive(client.as_ref(), request, &req.cancel, events)
            .await;
        let usage = received.as_ref().ok().and_then(|s| s.usage);
        spend::settle(req, options, held, (usage, self.stream.broke_off())).await;
        let mut streamed = match received {
            Ok(streamed) => streamed,
            Err(StreamStop::Cancelled) => return Err(Interrupt::Cancelled),
            Err(StreamStop::Failed(e)) => return Ok(Err(e)),
        };
        if self.fallback > 0 {
            // Recorded in the session: this answer came from a fallback model.
            let served = serde_json::Value::String(options.model.clone());
            streamed.message.extra.insert("model".into(), served);
        }
        Ok(Ok(streamed))
    }

    /// The options and provider of the model serving this request (its own, or a fallback).
    fn serving<'a>(&self, agent: &'a Agent) -> (&'a AgentOptions, &'a ProviderSettings) {
        match self
            .fallback
            .checked_sub(1)
            .and_then(|i| agent.fallbacks.get(i))
        {
            Some(f) => (&f.options, &f.provider),
            None => (&agent.options, &agent.provider),
        }
    }

    /// Moves to the next fallback model, said in the transcript; `false` when none is left.
    fn fall_back(&mut self, req: &Request) -> bool {
        let from = self.serving(req.agent).0.model.clone();
        let Some(next) = req.agent.fallbacks.get(self.fallback) else {
            return false;
        };
        self.fallback += 1;
        req.notice(
            NoticeLevel::Warning,
            format!(
                "{from} is overloaded; this request goes on with the fallback model {}.",
                next.options.model
            ),
        );
        true
    }

    /// The answer broke off mid-stream: the same call is sent again (its history holds every tool
    /// that ran, so none runs twice); what was shown of the broken answer is dropped.
    fn resume(&mut self, req: &Request, error: &LlmError) {
        self.stream.take_partial();
        req.notice(
            NoticeLevel::Warning,
            format!(
                "The answer broke off ({error}); asking again from where the request stands \
                 (tools that ran are not run again; the text shown of the broken answer is dropped)."
            ),
        );
    }

    /// The text the user saw of a response that did not complete.
    pub(super) fn take_partial(&mut self) -> String {
        self.stream.take_partial()
    }

    /// The tools of this request: every callable tool when its first call is made, a change since
    /// the last request said once.
    fn request_tools(&mut self, req: &Request) -> &OfferedTools {
        self.tools.get_or_insert_with(|| {
            let specs = callable_tools(req.agent).specs();
            announce_tool_changes(req, &specs);
            OfferedTools::new(specs)
        })
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
    ModelRequest {
        model: options.provider_model.clone(),
        system: offer.system,
        messages: t.messages().clone(),
        nudge,
        tools: offer.tools,
        max_output_tokens: options.max_output_tokens,
        temperature: None,
        reasoning: options.reasoning_effort.clone(),
        cache_key: None,
        cache: Some(t.cache()),
    }
}

/// The session as OpenAI's `prompt_cache_key`, for OpenAI's own API (other servers may refuse a
/// field they do not know).
fn openai_cache_key(req: &Request, provider: &ProviderSettings) -> Option<String> {
    (provider.provider == "openai" && provider.base_url.starts_with("https://api.openai.com"))
        .then(|| req.agent.session.lock().id.clone())
}
