//! What a session has in flight with its runtime: one thing at a time (a prompt's request, a built-in
//! command, a model switch), the rest waiting in order, so each `RequestEnded`, reply or `OpFailed`
//! belongs to the one in flight. A cancel ends waiting prompts at once and interrupts the running one,
//! which then ends as `cancelled` whatever its outcome.

use agent_client_protocol::Error;
use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema::{
    ConfigOptionUpdate, ContentBlock, PromptResponse, SessionConfigOptionValue, SessionUpdate,
    SetSessionConfigOptionRequest, SetSessionConfigOptionResponse, StopReason,
};
use tunacode_core::runtime::OpFailure;
use tunacode_core::{Op, RequestEnd};
use tunacode_protocol::FinishReason;

use crate::in_flight::{Current, Waiting};
use crate::modes::{BUDGET_OPTION, MODEL_OPTION, budget_choice, config_options};
use crate::prompt::{ReplyKind, SlashCommand, message, parse_command};
use crate::session::Session;
use tunacode_protocol::runtime::{BudgetScope, BudgetView};

impl Session {
    /// `session/prompt`: queued as a built-in command or a message for the runtime.
    pub(crate) async fn on_prompt(
        &mut self,
        blocks: &[ContentBlock],
        responder: Responder<PromptResponse>,
    ) -> Result<(), Error> {
        let message = message(blocks, &self.root, self.files.as_ref()).await;
        if self.closing.load(std::sync::atomic::Ordering::SeqCst) {
            return responder.respond(PromptResponse::new(StopReason::Cancelled));
        }
        if message.text.trim().is_empty() && message.attachments.is_empty() {
            return responder.respond_with_error(
                Error::invalid_params().data(serde_json::json!("the prompt is empty")),
            );
        }
        let waiting = match parse_command(&message.text) {
            Some(Ok(SlashCommand::Request(op))) => Waiting::Prompt {
                op,
                reply: None,
                responder,
            },
            Some(Ok(SlashCommand::Reply(op, kind))) => Waiting::Prompt {
                op,
                reply: Some(kind),
                responder,
            },
            Some(Err(text)) => Waiting::Say { text, responder },
            None => Waiting::Prompt {
                op: message.into_op(),
                reply: None,
                responder,
            },
        };
        self.waiting.push_back(waiting);
        self.advance()
    }

    /// `session/set_config_option`: the model, queued like a prompt.
    pub(crate) fn on_set_config(
        &mut self,
        request: SetSessionConfigOptionRequest,
        responder: Responder<SetSessionConfigOptionResponse>,
    ) -> Result<(), Error> {
        match (&*request.config_id.to_string(), &request.value) {
            (MODEL_OPTION, SessionConfigOptionValue::ValueId { value }) => {
                let op = Op::SetModel {
                    model: value.to_string(),
                };
                self.waiting.push_back(Waiting::Config { op, responder });
                self.advance()
            }
            (BUDGET_OPTION, SessionConfigOptionValue::ValueId { value })
                if budget_choice(&value.to_string()).is_some() =>
            {
                let op = Op::SetBudget {
                    scope: BudgetScope::Session,
                    usd: budget_choice(&value.to_string()).flatten(),
                    tokens: None,
                };
                self.waiting.push_back(Waiting::Config { op, responder });
                self.advance()
            }
            (id, _) => responder.respond_with_error(Error::invalid_params().data(
                serde_json::json!(format!("no config option `{id}` with that value")),
            )),
        }
    }

    /// Starts the next waiting thing when nothing is in flight.
    fn advance(&mut self) -> Result<(), Error> {
        while self.current.is_none() {
            let Some(next) = self.waiting.pop_front() else {
                return Ok(());
            };
            let (op, current) = match next {
                Waiting::Say { text, responder } => {
                    self.say(text)?;
                    responder.respond(PromptResponse::new(StopReason::EndTurn))?;
                    continue;
                }
                Waiting::Prompt {
                    op,
                    reply: Some(kind),
                    responder,
                } => (
                    op,
                    Current::Reply {
                        kind,
                        responder,
                        cancelled: false,
                    },
                ),
                Waiting::Prompt { op, responder, .. } => (
                    op,
                    Current::Request {
                        responder,
                        cancelled: false,
                    },
                ),
                Waiting::Config { op, responder } => {
                    let budget = matches!(op, Op::SetBudget { .. });
                    (op, Current::Config { responder, budget })
                }
            };
            self.compaction_said = false;
            self.current = Some(current);
            self.submit(op);
        }
        Ok(())
    }

    /// `session/cancel`: waiting prompts end as cancelled now; the running one is interrupted (and
    /// ends as cancelled when the runtime says it ended). Open questions end with it: their own calls
    /// fail now, and the editor's late answers to them are dropped (the runtime withdraws them).
    pub(crate) fn on_cancel(&mut self) -> Result<(), Error> {
        self.drop_questions()?;
        let mut kept = std::collections::VecDeque::new();
        for waiting in self.waiting.drain(..) {
            match waiting {
                Waiting::Prompt { responder, .. } | Waiting::Say { responder, .. } => {
                    responder.respond(PromptResponse::new(StopReason::Cancelled))?;
                }
                model => kept.push_back(model),
            }
        }
        self.waiting = kept;
        match &mut self.current {
            Some(Current::Request { cancelled, .. }) => {
                *cancelled = true;
                self.submit(Op::Interrupt);
            }
            Some(Current::Reply { cancelled, .. }) => *cancelled = true,
            _ => {}
        }
        Ok(())
    }

    /// A request ended: its prompt gets the stop reason (`cancelled` after a cancel, whatever the
    /// outcome; `max_turn_requests` at the iteration limit; `max_tokens` when the answer was cut;
    /// `refusal` when the provider refused); a failure is the prompt's error.
    pub(crate) fn on_request_ended(&mut self, end: &RequestEnd) -> Result<(), Error> {
        let (responder, cancelled) = match self.current.take() {
            Some(Current::Request {
                responder,
                cancelled,
            }) => (responder, cancelled),
            other => {
                self.current = other;
                return Ok(());
            }
        };
        if let Ok(outcome) = &end.outcome
            && outcome.reason == FinishReason::Compacted
            && !self.compaction_said
        {
            self.say(outcome.response.clone())?;
        }
        if let Ok(outcome) = &end.outcome
            && !cancelled
        {
            self.say_verdict(&outcome.verification)?;
        }
        let reason = match &end.outcome {
            _ if cancelled => StopReason::Cancelled,
            Ok(outcome) if outcome.reason == FinishReason::IterationLimit => {
                StopReason::MaxTurnRequests
            }
            Ok(outcome) if outcome.refused() => StopReason::Refusal,
            Ok(outcome) if outcome.model_stop.as_deref() == Some("length") => StopReason::MaxTokens,
            Ok(_) => StopReason::EndTurn,
            Err(e) if e.aborted() => StopReason::Cancelled,
            Err(e) => {
                responder.respond_with_error(Error::new(-32603, e.to_string()))?;
                return self.advance();
            }
        };
        responder.respond(PromptResponse::new(reason))?;
        self.advance()
    }

    /// A built-in command's answer: shown as the agent's message, ending its prompt.
    pub(crate) fn on_reply(&mut self, kind: ReplyKind, text: String) -> Result<(), Error> {
        match self.current.take() {
            Some(Current::Reply {
                kind: expected,
                responder,
                cancelled,
            }) if expected == kind => {
                self.say(text)?;
                responder.respond(PromptResponse::new(stop(cancelled, StopReason::EndTurn)))?;
                self.advance()
            }
            other => {
                self.current = other;
                Ok(())
            }
        }
    }

    /// The model changed: answers the change in flight, or tells the editor.
    pub(crate) fn on_model_changed(&mut self, model: String) -> Result<(), Error> {
        self.view.model.model = model;
        match self.current {
            Some(Current::Config { budget: true, .. }) => self.tell_config(),
            _ => self.config_changed(),
        }
    }

    /// Tells the editor the config options as they are now.
    fn tell_config(&self) -> Result<(), Error> {
        let options = config_options(&self.models, self.model(), self.budget);
        self.send(SessionUpdate::ConfigOptionUpdate(ConfigOptionUpdate::new(
            options,
        )))
    }

    /// The caps and their spend: the answer to `/budget`, or to a change of the session budget.
    pub(crate) fn on_budget(&mut self, view: BudgetView) -> Result<(), Error> {
        let session = view.caps.iter().find(|c| c.scope == BudgetScope::Session);
        self.budget = session.and_then(|c| c.usd);
        match self.current {
            Some(Current::Config { budget: true, .. }) => self.config_changed(),
            _ => self.on_reply(ReplyKind::Budget, view.describe()),
        }
    }

    /// Answers the config change in flight with the options as they are now, or tells the editor.
    fn config_changed(&mut self) -> Result<(), Error> {
        let options = config_options(&self.models, self.model(), self.budget);
        match self.current.take() {
            Some(Current::Config { responder, .. }) => {
                responder.respond(SetSessionConfigOptionResponse::new(options))?;
                self.advance()
            }
            other => {
                self.current = other;
                self.send(SessionUpdate::ConfigOptionUpdate(ConfigOptionUpdate::new(
                    options,
                )))
            }
        }
    }

    /// An operation failed. An answer to a question that was withdrawn meanwhile is no news; any
    /// other failure answers what is in flight (a request that could not start, a built-in command,
    /// a model switch), or is said.
    pub(crate) fn on_op_failed(&mut self, failure: OpFailure) -> Result<(), Error> {
        if matches!(
            failure,
            OpFailure::UnknownQuestion(_) | OpFailure::WrongAnswer(_)
        ) {
            tracing::debug!(session = %self.id, "a late answer: {failure}");
            return Ok(());
        }
        let message = failure.to_string();
        match self.current.take() {
            Some(Current::Request {
                responder,
                cancelled: true,
            }) => responder.respond(PromptResponse::new(StopReason::Cancelled))?,
            Some(Current::Request { responder, .. }) => {
                responder.respond_with_error(Error::new(-32603, message))?
            }
            Some(Current::Reply {
                responder,
                cancelled,
                ..
            }) => {
                self.say(message)?;
                responder.respond(PromptResponse::new(stop(cancelled, StopReason::EndTurn)))?
            }
            Some(Current::Config { responder, .. }) => {
                responder.respond_with_error(Error::new(-32603, message))?
            }
            None => self.say(message)?,
        }
        self.advance()
    }

    /// Answers everything in flight or waiting as cancelled (the session is going away).
    pub(crate) fn end_all(&mut self) {
        let gone = || Error::new(-32603, "the session closed");
        match self.current.take() {
            Some(Current::Request { responder, .. } | Current::Reply { responder, .. }) => {
                let _ = responder.respond(PromptResponse::new(StopReason::Cancelled));
            }
            Some(Current::Config { responder, .. }) => {
                let _ = responder.respond_with_error(gone());
            }
            None => {}
        }
        for waiting in self.waiting.drain(..) {
            let _ = match waiting {
                Waiting::Prompt { responder, .. } | Waiting::Say { responder, .. } => {
                    responder.respond(PromptResponse::new(StopReason::Cancelled))
                }
                Waiting::Config { responder, .. } => responder.respond_with_error(gone()),
            };
        }
    }
}

/// The stop reason: `cancelled` after a cancel, else `reason`.
fn stop(cancelled: bool, reason: StopReason) -> StopReason {
    if cancelled {
        StopReason::Cancelled
    } else {
        reason
    }
}
