//! The finish step: a request that ends persists the run's messages with external appends (seed 000
//! §3.4), saves the session and says how it ended; an interrupted one first keeps the partial text as
//! `[INTERRUPTED]`, cancels in-flight calls and cleans dangling calls (seed 000 §6.2).

use tunacode_protocol::{AgentEvent, FinishReason, INTERRUPTED_MARKER, Message, MessageKind, Part};

use super::request::{Interrupt, Request, StopCause};
use super::transcript::{Transcript, save_session};
use crate::agent::RunOutcome;
use crate::error::RequestError;

/// How a request that was not interrupted ended.
pub(super) struct Ending {
    /// Why it ended.
    pub(super) reason: FinishReason,
    /// Iterations run.
    pub(super) iterations: u32,
    /// The answer the user got.
    pub(super) response: String,
    /// What the project's checks proved.
    pub(super) verification: tunacode_protocol::Verification,
}

/// Persists and saves the run, and says it finished.
pub(super) async fn finished(
    req: &Request<'_>,
    t: &Transcript,
    ending: Ending,
) -> Result<RunOutcome, RequestError> {
    t.persist(req.agent);
    save_session(req.agent).await?;
    req.emit(AgentEvent::RequestFinished {
        reason: ending.reason,
        iterations: ending.iterations,
        response: ending.response.clone(),
    });
    let model_stop = match ending.reason {
        FinishReason::Compacted => None,
        _ => last_finish_reason(req),
    };
    Ok(RunOutcome {
        reason: ending.reason,
        iterations: ending.iterations,
        response: ending.response,
        request_id: req.id.clone(),
        model_stop,
        verification: ending.verification,
    })
}

/// Seed 000 §6.2: keep the `partial` text the user saw as `[INTERRUPTED]`, cancel in-flight calls,
/// clean dangling calls, persist and save; drop the cached client after an abort or a timeout.
pub(super) async fn interrupted(
    req: &Request<'_>,
    t: &mut Transcript,
    partial: String,
    interrupt: Interrupt,
) -> RequestError {
    if !partial.trim().is_empty() {
        let text = format!("{partial}\n\n{INTERRUPTED_MARKER}");
        t.push(Message::response(vec![Part::text(text)]));
    }
    {
        let mut session = req.agent.session.lock();
        let registry = &mut session.runtime.tool_registry;
        for id in registry.in_flight() {
            let _ = registry.cancel(&id, "request interrupted");
        }
    }
    t.clean_up();
    t.persist(req.agent);
    let error = interruption_error(req, interrupt, partial);
    if matches!(error, RequestError::Aborted | RequestError::TimedOut(_)) {
        req.agent.clients.invalidate(&req.agent.provider);
    }
    match save_session(req.agent).await {
        Ok(()) => error,
        Err(store) => store,
    }
}

/// The error an interruption ends the request with, said as an event.
fn interruption_error(req: &Request, interrupt: Interrupt, partial: String) -> RequestError {
    match (interrupt, req.stop_cause()) {
        (Interrupt::Cancelled, Some(StopCause::Timeout)) => {
            let limit = req.agent.options.request_timeout.unwrap_or_default();
            req.emit(AgentEvent::RequestTimedOut {
                timeout_secs: limit.as_secs_f64(),
            });
            RequestError::TimedOut(limit)
        }
        (Interrupt::Cancelled, _) => {
            req.emit(AgentEvent::RequestAborted {
                partial_text: partial,
            });
            RequestError::Aborted
        }
        (Interrupt::Failed(e), _) => failed(req, RequestError::Llm(e)),
        (Interrupt::Budget(stop), _) => failed(req, RequestError::Budget(stop)),
        (Interrupt::Internal(message), _) => failed(req, RequestError::Internal(message)),
    }
}

/// Says the request failed with `error`.
fn failed(req: &Request, error: RequestError) -> RequestError {
    req.emit(AgentEvent::RequestFailed {
        kind: error.kind().to_string(),
        message: error.to_string(),
    });
    error
}

/// The provider's finish reason of the session's last model response.
fn last_finish_reason(req: &Request) -> Option<String> {
    let session = req.agent.session.lock();
    session
        .messages
        .iter()
        .rev()
        .find(|m| m.kind == MessageKind::Response)
        .and_then(|m| m.extra.get("finish_reason"))
        .and_then(tunacode_protocol::ExtraValue::as_str)
        .map(str::to_string)
}
