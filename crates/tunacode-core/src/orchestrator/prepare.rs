//! The prepare step (seed 001 steps 1–3): the request id and the runtime reset, the original query,
//! and the history prepared for the model (pruned as configured), which becomes the request's
//! [`Transcript`] over the session's journal.

use std::sync::Arc;

use tunacode_protocol::{AgentEvent, Part};

use super::recorder::Recorder;
use super::request::Request;
use super::run_history::RunHistory;
use super::run_journal::RunJournal;
use super::transcript::Transcript;
use crate::history::prepare_history;

/// A prepared request.
pub(super) struct Prepared {
    /// The request's history, the user's message added.
    pub(super) transcript: Transcript,
    /// The prepared history differs from the session file (or there is no file): save it first.
    pub(super) checkpoint_needed: bool,
}

/// Prepares `req` (its prompt's part marked with `marker`, its node's), and says it started.
pub(super) fn prepare(req: &Request, marker: Option<&str>) -> Prepared {
    let agent = req.agent;
    agent.budget.start_request();
    let mut session = agent.session.lock();
    session.runtime.request_id = req.id.clone();
    session.runtime.current_iteration = 0;
    session.runtime.iteration_count = 0;
    session.runtime.tool_registry.clear();
    session.runtime.batch_counter = 0;
    session.runtime.consecutive_empty_responses = 0;
    session.runtime.plan_awaiting_approval = None;
    session.task.original_query = req.message.clone();
    session.model = agent.options.model.clone();
    let prepared = prepare_history(&session.messages, &agent.options.prune);
    // The journal indexes the prepared history: the file must hold exactly it. A history that needed
    // no preparing comes back as the same shared list.
    let checkpoint_needed =
        session.journal_base.is_none() || !Arc::ptr_eq(&prepared, &session.messages);
    if checkpoint_needed {
        session.messages = prepared.clone();
        // The history sent next is not the one the cache holds: a miss is expected, not news.
        session.runtime.last_call = None;
    }
    let history = RunHistory::prepared(prepared, session.messages.len());
    let journal = agent
        .store
        .as_ref()
        .map(|store| RunJournal::new(store.journal(&session.project_id, &session.id)));
    let recorder = Recorder::new(journal, history.messages().len());
    let session_id = session.id.clone();
    drop(session);
    let mut transcript = Transcript::new(history, recorder);
    match marker {
        Some(marker) => {
            let mut part = crate::rewind::marked_prompt(req.message.clone(), marker);
            if let Part::UserPrompt(prompt) = &mut part
                && !req.images.is_empty()
            {
                prompt.content =
                    crate::prompt_images::prompt_content(&req.message, &req.images).into();
            }
            transcript.add_prompt_part(part)
        }
        None if !req.message.is_empty() => transcript.add_user_prompt(req.message.clone()),
        None => {}
    }
    tracing::info!(request_id = %req.id, "request started");
    req.emit(AgentEvent::RequestStarted {
        request_id: req.id.clone(),
        model: agent.options.model.clone(),
        session_id,
    });
    Prepared {
        transcript,
        checkpoint_needed,
    }
}
