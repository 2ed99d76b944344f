//! [`Request`]: what every step of one request reads and none changes: the engine, the user's
//! message, the request id (seed 000 §3.2), the run token and why it was cancelled.

use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;
use tunacode_protocol::{AgentEvent, NoticeLevel};

use crate::agent::Agent;

/// Why the run token was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopCause {
    /// The user aborted.
    Abort,
    /// The global timeout fired.
    Timeout,
}

/// Why a step stopped the request early.
pub(super) enum Interrupt {
    /// The run token was cancelled (abort or timeout).
    Cancelled,
    /// The provider failed.
    Failed(tunacode_llm::LlmError),
    /// The budget cannot pay for the next call.
    Budget(crate::budget::BudgetStop),
    /// Something inside TunaCode failed.
    Internal(String),
}

/// One request's fixed context.
pub(super) struct Request<'a> {
    /// The engine the request runs on.
    pub(super) agent: &'a Agent,
    /// The user's message (empty for `/compact`).
    pub(super) message: String,
    /// What the user typed (before mentions and commands were expanded).
    pub(super) typed: String,
    /// Images sent with the prompt.
    pub(super) images: Vec<crate::prompt_images::PromptImage>,
    /// The request's id.
    pub(super) id: String,
    /// Cancelled by the user or the global timeout.
    pub(super) cancel: CancellationToken,
    cause: Arc<Mutex<Option<StopCause>>>,
}

impl<'a> Request<'a> {
    /// A new request with a fresh id.
    pub(super) fn new(
        agent: &'a Agent,
        (typed, message): (&str, &str),
        cancel: CancellationToken,
        cause: Arc<Mutex<Option<StopCause>>>,
    ) -> Self {
        Request {
            agent,
            message: message.to_string(),
            typed: typed.to_string(),
            images: Vec::new(),
            id: new_request_id(),
            cancel,
            cause,
        }
    }

    /// Sends an engine event.
    pub(super) fn emit(&self, event: AgentEvent) {
        self.agent.events.emit(event);
    }

    /// Says something to the user.
    pub(super) fn notice(&self, level: NoticeLevel, message: String) {
        self.emit(AgentEvent::Notice { level, message });
    }

    /// Why the run token was cancelled, if it was.
    pub(super) fn stop_cause(&self) -> Option<StopCause> {
        *self.cause.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Fails with [`Interrupt::Cancelled`] once the run token is cancelled.
    pub(super) fn check_cancelled(&self) -> Result<(), Interrupt> {
        if self.cancel.is_cancelled() {
            return Err(Interrupt::Cancelled);
        }
        Ok(())
    }
}

/// The first 8 hex chars of a UUID4 (seed 000 §3.2).
pub(crate) fn new_request_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..8].to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn request_ids_are_8_hex_chars_and_differ() {
        let a = super::new_request_id();
        assert_eq!(a.len(), 8);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, super::new_request_id());
    }
}
