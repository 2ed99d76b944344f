//! [`Guide`]: the step that steers a request (seed 003 §7, seed 004): it counts the iterations against
//! their limit, asks the model to assess its progress from the third iteration on, answers an empty
//! response with an intervention or, after several tool-less iterations, the no-progress alert, and
//! at the limit asks the user how to go on (`limit.rs`).

use tunacode_protocol::{Message, NoticeLevel};

use super::iterations::Iterations;
use super::progress::Progress;
use super::request::Request;
use super::transcript::Transcript;
use crate::completion::COMPLETION_MARKER;
use crate::guidance::{
    NO_PROGRESS_THRESHOLD, SELF_EVALUATION_FROM, no_progress_alert, self_evaluation_prompt,
};

/// What steers the request, and the counts it steers by.
#[derive(Debug)]
pub(super) struct Guide {
    /// The iteration count against its limit.
    pub(super) iterations: Iterations,
    /// Whether the run gets anywhere (iterations without tool calls).
    progress: Progress,
}

impl Guide {
    /// A guide for a request under `limit` iterations.
    pub(super) fn new(limit: u32) -> Self {
        Guide {
            iterations: Iterations::new(limit),
            progress: Progress::default(),
        }
    }

    /// The next call is the summary the user asked for at the limit: no tools, then stop.
    pub(super) fn summarizing(&self) -> bool {
        self.iterations.summarizing()
    }

    /// The nudge of this call: from the third iteration on (while the task is open) the last request
    /// also asks the model to assess its progress, in the same call, not stored.
    pub(super) fn nudge(&self, req: &Request, t: &Transcript, completed: bool) -> Option<String> {
        (req.agent.options.guidance.self_evaluation
            && self.iterations.count() >= SELF_EVALUATION_FROM
            && !completed
            && !self.summarizing()
            && t.messages().last().is_some_and(Message::is_request))
        .then(self_evaluation_prompt)
    }

    /// This iteration called tools.
    pub(super) fn productive(&mut self) {
        self.progress.productive(self.iterations.count());
    }

    /// This iteration called no tool; it counts against progress while the task is open.
    pub(super) fn unproductive(&mut self, completed: bool) {
        if !completed {
            self.progress.unproductive();
        }
    }

    /// Seed 004 "Empty Response Recovery": a notice, and an intervention message to the model; after
    /// several tool-less iterations in a row, seed 004's no-progress alert instead.
    pub(super) fn on_empty_response(&self, req: &Request, t: &mut Transcript) {
        let count = {
            let mut session = req.agent.session.lock();
            session.runtime.consecutive_empty_responses += 1;
            session.runtime.consecutive_empty_responses
        };
        let iteration = self.iterations.count();
        let stalled = self.progress.stalled(NO_PROGRESS_THRESHOLD);
        if req.agent.options.guidance.no_progress_alert
            && let Some((unproductive, last_productive)) = stalled
        {
            req.notice(
                NoticeLevel::Warning,
                format!("No tool calls for {unproductive} iterations; alerting the model."),
            );
            let limit = self.iterations.limit();
            let alert = no_progress_alert(
                unproductive,
                last_productive,
                iteration,
                limit,
                &req.message,
            );
            t.add_user_prompt(alert);
            return;
        }
        req.notice(
            NoticeLevel::Warning,
            format!(
                "The model returned an empty response (iteration {iteration}, {count} in a row); \
                 asking it to act."
            ),
        );
        t.add_user_prompt(format!(
            "Your previous response was empty: no text and no tool call (iteration {iteration}). The \
             task is still open:\n\n{}\n\nAct now: call a tool to make progress, or, if the task is \
             complete, reply starting with `{COMPLETION_MARKER}` followed by a summary. If you are \
             blocked, say exactly what blocks you.",
            req.message
        ));
    }
}
