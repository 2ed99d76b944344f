//! Processing one model response, the seed's node (seed 000 §1.2 `process_node`): it is measured and
//! recorded, tool calls written as text become structured calls, and then it is an empty response
//! (the guide intervenes), an answer (the request ends), or tool calls (the tool step runs them).

use tunacode_protocol::{FinishReason, Message, Part, ToolCallPart};

use super::RequestRun;
use super::done_checks::Completion;
use super::loops::AfterLoop;
use super::prompt_hooks::{self, MAX_STOP_BLOCKS};
use super::record::record_usage_and_thoughts;
use super::request::{Interrupt, Request, new_request_id};
use super::transcript::Transcript;
use crate::fallback_parse::parse_tool_calls_from_text;
use crate::loop_watch::LoopSign;
use crate::response_state::AgentState;
use crate::streaming::Streamed;

impl RequestRun<'_> {
    /// Returns the finish reason when the request is over.
    pub(super) async fn process_node(
        &mut self,
        streamed: Streamed,
    ) -> Result<Option<FinishReason>, Interrupt> {
        let (response, calls) = self.read_response(streamed);
        if response.is_empty_response() {
            self.guide.unproductive(self.state.task_completed);
            self.guide
                .on_empty_response(&self.request, &mut self.transcript);
            self.transition(AgentState::Response);
            return Ok(self
                .guide
                .summarizing()
                .then_some(FinishReason::IterationLimit));
        }
        self.request
            .agent
            .session
            .lock()
            .runtime
            .consecutive_empty_responses = 0;
        let text = response.text();
        let text_sign = if !text.trim().is_empty() && !calls.is_empty() {
            self.loops.text(&self.request, &text)
        } else {
            None
        };
        if !text.trim().is_empty() {
            self.state.has_user_response = true;
            self.response = text;
        }
        self.transcript.push(response);
        if self.guide.summarizing() {
            self.transition(AgentState::Response);
            return Ok(Some(FinishReason::IterationLimit));
        }
        if calls.is_empty() {
            self.guide.unproductive(self.state.task_completed);
            self.transition(AgentState::Response);
            let reason = if self.state.task_completed {
                FinishReason::Completed
            } else {
                FinishReason::Answered
            };
            return self.conclude(reason).await;
        }
        self.run_tools(&calls, text_sign).await
    }

    /// The model says it is done (`reason`): the checks decide whether the request ends (with their
    /// proof) or the model goes on to fix what they report; then the `Stop` hooks may send it back.
    async fn conclude(&mut self, reason: FinishReason) -> Result<Option<FinishReason>, Interrupt> {
        let completion = self
            .proof
            .at_completion(&self.request, &mut self.transcript, &self.response)
            .await?;
        let verification = match completion {
            Completion::Done(verification) => verification,
            Completion::FixRound => {
                self.state.task_completed = false;
                return Ok(None);
            }
        };
        let active = self.stop_blocks > 0;
        let blocked = prompt_hooks::stopping(&self.request, &self.response, active).await;
        match blocked {
            Some(reason) if self.stop_blocks < MAX_STOP_BLOCKS => {
                self.stop_blocks += 1;
                self.transcript
                    .add_user_prompt(format!("[Stop hook: keep working]\n{reason}"));
                self.state.task_completed = false;
                Ok(None)
            }
            _ => {
                self.verification = Some(verification);
                Ok(Some(reason))
            }
        }
    }

    /// Measures and records a response, marks the task done when it says so, and gives its tool
    /// calls (those written as text included) ids of their own.
    fn read_response(&mut self, streamed: Streamed) -> (Message, Vec<ToolCallPart>) {
        let mut response = streamed.message;
        if let Some(usage) = &streamed.usage {
            let len = self.transcript.messages().len() + 1;
            let served = match response.extra.get("model").and_then(|m| m.as_str()) {
                Some(fallback) => fallback.to_string(),
                None => self.request.agent.options.model.clone(),
            };
            self.context.answered(&self.request, usage, len, &served);
        }
        record_usage_and_thoughts(self.request.agent, streamed.usage, &response);
        if streamed.completed {
            self.state.task_completed = true;
        }
        if response.tool_calls().next().is_none() && !self.guide.summarizing() {
            fallback_calls(&self.request, &mut response);
        }
        make_call_ids_unique(&mut self.transcript, &mut response);
        let calls = response.tool_calls().cloned().collect();
        (response, calls)
    }

    /// Runs a response's tool calls; the finish reason when the request is over (a plan was
    /// presented, the task is complete, the model loops). `text_sign`: the response's text repeats.
    async fn run_tools(
        &mut self,
        calls: &[ToolCallPart],
        text_sign: Option<LoopSign>,
    ) -> Result<Option<FinishReason>, Interrupt> {
        self.guide.productive();
        self.transition(AgentState::ToolExecution);
        let ran = self
            .tools
            .run(
                &self.request,
                &mut self.transcript,
                calls,
                (&mut self.proof, &mut self.turn),
            )
            .await;
        self.transition(AgentState::Response);
        if let Some(plan) = ran? {
            self.response = plan;
            return Ok(Some(FinishReason::PlanPresented));
        }
        if self.state.task_completed {
            return self.conclude(FinishReason::Completed).await;
        }
        let call_sign = self.loops.calls(&self.request, calls);
        let Some(sign) = text_sign.or(call_sign) else {
            return Ok(None);
        };
        let iterations = self.guide.iterations.count();
        let after = self
            .loops
            .on_sign(&self.request, &mut self.transcript, sign, iterations)
            .await?;
        Ok((after == AfterLoop::Stop).then_some(FinishReason::LoopDetected))
    }
}

/// Tool calls written as text become structured calls in the response, so they pair with answers.
fn fallback_calls(req: &Request, response: &mut Message) {
    let text = response.text();
    let found = parse_tool_calls_from_text(&text, |name| req.agent.tools.get(name).is_some());
    let mut count = 0;
    for (n, call) in found.into_iter().enumerate() {
        let id = format!("fallback_{}_{n}", req.id);
        // Malformed arguments stay text: dispatch answers the model with what is wrong.
        let args = match call.args {
            Ok(map) => serde_json::Value::Object(map),
            Err(raw) => serde_json::Value::String(raw),
        };
        response
            .parts
            .push(Part::tool_call(id, call.tool_name, args));
        count += 1;
    }
    if count > 0 {
        tracing::info!(count, "tool calls parsed from text");
    }
}

/// A model (or a local server) may give several calls the same id, or reuse an id of an earlier
/// turn; a strict provider rejects that history on the next request. Repeats get fresh ids here,
/// before anything answers them, so each result stays paired with its own call.
fn make_call_ids_unique(t: &mut Transcript, response: &mut Message) {
    for part in &mut response.parts {
        if let Part::ToolCall(call) = part {
            while call.tool_call_id.is_empty() || !t.new_call_id(&call.tool_call_id) {
                call.tool_call_id = format!("call_{}", new_request_id());
            }
        }
    }
}
