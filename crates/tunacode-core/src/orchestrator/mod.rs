//! [`RequestRun`]: one request through the loop of seed 000 §2 and seed 001's Request Loop Contract,
//! as a sequence of steps, each a type holding only its own state:
//!
//! - prepare (`prepare.rs`): request id, runtime reset, original query, the prepared history;
//! - call the model ([`ModelCall`], `call.rs`) with what is offered now (`offer.rs`), kept inside
//!   the window by the [`ContextKeeper`] (pruning and compaction, `context.rs`), and stream it
//!   (`Stream`, `streaming.rs`);
//! - process the node (`node.rs`): measure and record it (`record.rs`), then an empty response, an
//!   answer, or tool calls;
//! - dispatch tools ([`ToolRound`], `tool_round.rs`), recording the workspace for rewind in the
//!   prompt's node ([`TurnPoint`], `turn_point.rs`);
//! - guide ([`Guide`], `guide.rs`, `limit.rs`): iterations against their limit, the self-evaluation
//!   nudge, empty-response recovery and the no-progress alert;
//! - prove the work ([`Proof`], `proof.rs`, `done_checks.rs`): the project's checks after edits
//!   and when the model says it is done, and the verdict (`verified`, `unverified`, `failing`);
//! - watch for loops ([`LoopGuard`], `loops.rs`): a model repeating a call, an error or its text is
//!   told to change approach, then the user decides (a headless run stops: `loop_detected`);
//! - finish (`finish.rs`): persist (run messages plus messages appended from outside) and save; abort,
//!   timeout and failure keep partial text as `[INTERRUPTED]`, cancel in-flight tools, clean dangling
//!   calls, save.
//!
//! Journaling is an observer of the history: every change goes through the [`Transcript`]
//! (`transcript.rs`), which tells the [`Recorder`](recorder::Recorder) what to write again. The
//! [`Request`] (`request.rs`) is what every step reads and none changes.

pub(crate) mod breakdown;
mod call;
mod context;
mod diagnose;
mod done_checks;
mod finish;
mod guide;
pub(crate) mod hook_points;
mod iterations;
mod limit;
mod loops;
mod meter;
mod node;
mod offer;
mod prepare;
mod progress;
mod prompt_hooks;
mod proof;
mod record;
mod recorder;
mod request;
mod run_history;
pub(crate) mod run_journal;
mod spend;
mod supervise;
mod tool_round;
mod transcript;
mod turn_point;

use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;
use tunacode_protocol::{AgentEvent, FinishReason};

use crate::agent::{Agent, RunOutcome};
use crate::error::RequestError;
use crate::response_state::{AgentState, ResponseState};
use call::{CallPlan, ModelCall};
use context::ContextKeeper;
use finish::{Ending, finished, interrupted};
use guide::Guide;
use limit::AtLimit;
use loops::LoopGuard;
use proof::Proof;
pub(crate) use request::StopCause;
use request::{Interrupt, Request};
use tool_round::ToolRound;
use transcript::{Transcript, save_session};
use turn_point::TurnPoint;

/// One request in flight: the steps and what passes between them.
pub(crate) struct RequestRun<'a> {
    request: Request<'a>,
    /// The request's history, journaled as it changes.
    transcript: Transcript,
    /// Where the request is (seed 002), whether an answer reached the user, whether the task is done.
    state: ResponseState,
    /// The answer the request ends with.
    response: String,
    context: ContextKeeper,
    call: ModelCall,
    tools: ToolRound,
    guide: Guide,
    loops: LoopGuard,
    /// The project's checks and what they proved.
    proof: Proof,
    /// The proof the request ended with, once the model said it was done.
    verification: Option<tunacode_protocol::Verification>,
    /// `Stop` hooks that sent the model back in a row.
    stop_blocks: u32,
    /// The prompt's node in the session's tree.
    turn: TurnPoint,
}

impl<'a> RequestRun<'a> {
    pub(crate) fn new(
        agent: &'a Agent,
        (typed, message): (&str, &str),
        cancel: CancellationToken,
        cause: Arc<Mutex<Option<StopCause>>>,
    ) -> Self {
        RequestRun {
            request: Request::new(agent, (typed, message), cancel, cause),
            transcript: Transcript::default(),
            state: ResponseState::new(),
            response: String::new(),
            context: ContextKeeper::default(),
            call: ModelCall::default(),
            tools: ToolRound,
            guide: Guide::new(agent.options.max_iterations),
            loops: LoopGuard::new(agent.options.guidance.loop_detection),
            proof: Proof::default(),
            verification: None,
            stop_blocks: 0,
            turn: TurnPoint::default(),
        }
    }

    /// Images sent with the prompt.
    pub(crate) fn with_images(mut self, images: Vec<crate::prompt_images::PromptImage>) -> Self {
        self.request.images = images;
        self
    }

    pub(crate) async fn run(mut self) -> Result<RunOutcome, RequestError> {
        if let Err(e) = self.prepare().await {
            self.request.emit(AgentEvent::RequestFailed {
                kind: e.kind().to_string(),
                message: e.to_string(),
            });
            return Err(e);
        }
        let iterated = self.iterate().await;
        self.turn.end(self.request.agent).await;
        match iterated {
            Ok(reason) => {
                let verification = match self.verification.take() {
                    Some(v) => v,
                    None => self.proof.verdict(&self.request, &self.response),
                };
                let ending = Ending {
                    reason,
                    iterations: self.guide.iterations.count(),
                    response: std::mem::take(&mut self.response),
                    verification,
                };
                finished(&self.request, &self.transcript, ending).await
            }
            Err(interrupt) => Err(self.interrupted(interrupt).await),
        }
    }

    /// `/compact`: prepares the history as a request would, compacts it, and saves the session.
    pub(crate) async fn run_compaction(
        mut self,
        focus: Option<String>,
    ) -> Result<RunOutcome, RequestError> {
        self.prepare().await?;
        let agent = self.request.agent;
        let tools = offer::OfferedTools::new(offer::callable_tools(agent).specs());
        let fixed = offer::Offer::now(agent, &tools, false).fixed;
        let compacted = self
            .context
            .compact(
                &self.request,
                &mut self.transcript,
                context::Cause::Asked(focus.as_deref()),
                fixed,
            )
            .await;
        match compacted {
            Ok(done) => {
                let response = if done {
                    "The older history was summarized."
                } else {
                    "Nothing was compacted."
                };
                let ending = Ending {
                    reason: FinishReason::Compacted,
                    iterations: 0,
                    response: response.to_string(),
                    verification: Default::default(),
                };
                finished(&self.request, &self.transcript, ending).await
            }
            Err(interrupt) => Err(self.interrupted(interrupt).await),
        }
    }

    /// The prepare step; the prepared history is saved first when the session file differs. The
    /// `UserPromptSubmit` hooks run first: one may block the prompt, or add context after it.
    async fn prepare(&mut self) -> Result<(), RequestError> {
        let context = prompt_hooks::submitted(&self.request).await?;
        let marker = match self.request.message.is_empty() {
            true => None,
            false => Some(
                self.turn
                    .begin(self.request.agent, &self.request.typed)
                    .await,
            ),
        };
        let prepared = prepare::prepare(&self.request, marker.as_deref());
        self.transcript = prepared.transcript;
        for text in context {
            self.transcript.add_user_prompt(text);
        }
        if prepared.checkpoint_needed {
            save_session(self.request.agent).await?;
        }
        Ok(())
    }

    async fn iterate(&mut self) -> Result<FinishReason, Interrupt> {
        loop {
            if self.guide.iterations.at_limit() {
                let answered = self.state.has_user_response;
                match self
                    .guide
                    .at_limit(&self.request, &mut self.transcript, answered)
                    .await?
                {
                    AtLimit::GoOn => continue,
                    AtLimit::Stop(fallback) => {
                        if let Some(text) = fallback {
                            self.response = text;
                        }
                        return Ok(FinishReason::IterationLimit);
                    }
                }
            }
            self.start_iteration();
            let plan = CallPlan {
                summarizing: self.guide.summarizing(),
                nudge: self
                    .guide
                    .nudge(&self.request, &self.transcript, self.state.task_completed),
            };
            let streamed = self
                .call
                .call(&self.request, &mut self.transcript, &mut self.context, plan)
                .await?;
            if let Some(reason) = self.process_node(streamed).await? {
                return Ok(reason);
            }
        }
    }

    /// Counts the next iteration and says it started.
    fn start_iteration(&mut self) {
        let iteration = self.guide.iterations.start_next();
        {
            let mut session = self.request.agent.session.lock();
            session.runtime.current_iteration = iteration;
            session.runtime.iteration_count = iteration;
        }
        self.request.emit(AgentEvent::IterationStarted {
            iteration,
            max_iterations: self.guide.iterations.limit(),
        });
        self.transition(AgentState::Assistant);
        self.transcript.check_new_messages();
    }

    async fn interrupted(&mut self, interrupt: Interrupt) -> RequestError {
        let partial = self.call.take_partial();
        interrupted(&self.request, &mut self.transcript, partial, interrupt).await
    }

    fn transition(&mut self, to: AgentState) {
        if let Err(e) = self.state.transition_to(to) {
            tracing::error!(error = %e, "response state");
        }
    }
}
