//! The end of a request: interruption cleanup (seed 000 §6.2), persistence of the run's messages with
//! external appends (seed 000 §3.4), and saving the session.

use tunacode_protocol::{AgentEvent, INTERRUPTED_MARKER, Message, Part};

use super::{Interrupt, RequestRun, StopCause};
use crate::error::RequestError;
use crate::history::run_cleanup_loop;

impl RequestRun<'_> {
    /// Seed 000 §6.2: keep partial text as `[INTERRUPTED]`, cancel in-flight calls, clean dangling
    /// calls, persist and save; drop the cached client after an abort or a timeout.
    pub(super) async fn finish_interrupted(&mut self, interrupt: Interrupt) -> RequestError {
        let partial = std::mem::take(&mut self.shown);
        if !partial.trim().is_empty() {
            let text = format!("{partial}\n\n{INTERRUPTED_MARKER}");
            self.history_mut()
                .push(Message::response(vec![Part::text(text)]));
        }
        {
            let mut session = self.agent.session.lock();
            let registry = &mut session.runtime.tool_registry;
            for id in registry.in_flight() {
                let _ = registry.cancel(&id, "request interrupted");
            }
        }
        run_cleanup_loop(self.history_mut());
        self.persist();
        let cause = *self.cause.lock().unwrap_or_else(|p| p.into_inner());
        let error = match (interrupt, cause) {
            (Interrupt::Cancelled, Some(StopCause::Timeout)) => {
                let limit = self.agent.options.request_timeout.unwrap_or_default();
                self.agent.events.emit(AgentEvent::RequestTimedOut {
                    timeout_secs: limit.as_secs_f64(),
                });
                RequestError::TimedOut(limit)
            }
            (Interrupt::Cancelled, _) => {
                self.agent.events.emit(AgentEvent::RequestAborted {
                    partial_text: partial,
                });
                RequestError::Aborted
            }
            (Interrupt::Failed(e), _) => {
                self.agent.events.emit(AgentEvent::RequestFailed {
                    kind: e.kind().to_string(),
                    message: e.to_string(),
                });
                RequestError::Llm(e)
            }
        };
        if matches!(error, RequestError::Aborted | RequestError::TimedOut(_)) {
            self.agent.clients.invalidate(&self.agent.provider);
        }
        match self.save().await {
            Ok(()) => error,
            Err(store) => store,
        }
    }

    /// Seed 000 §3.4: the run's messages are authoritative; messages appended from outside during the
    /// run are kept after them.
    pub(super) fn persist(&self) {
        let mut session = self.agent.session.lock();
        session.messages = self.history.merged_with(&session.messages);
        session.update_token_count();
    }
}
