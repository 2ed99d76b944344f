//! Questions waiting for the user. The engine's approver asks here; the question goes out as an event
//! with an id, and the front end's answer operation comes back to the waiting call. A question whose
//! call stopped waiting (its request was interrupted) is withdrawn with a `QuestionClosed` event.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use crate::events::EventSink;
use crate::runtime::events::{OpFailure, Question, QuestionKind, RuntimeEvent};
use crate::runtime::ops::Answer;
use tunacode_protocol::runtime::ApprovalAnswer;

type Pending = HashMap<String, (Tag, oneshot::Sender<Answer>)>;

/// Which answers fit a question (an approval's: with how many hunks it offers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Approval(usize),
    Limit,
    Plan,
    Budget,
    Loop,
}

impl Tag {
    fn of_question(kind: &QuestionKind) -> Tag {
        match kind {
            QuestionKind::Approval(q) => Tag::Approval(q.hunks),
            QuestionKind::IterationLimit(_) => Tag::Limit,
            QuestionKind::PlanReview { .. } => Tag::Plan,
            QuestionKind::Budget(_) => Tag::Budget,
            QuestionKind::Loop(_) => Tag::Loop,
        }
    }

    /// Whether `answer` fits a question of this tag: its kind, and for hunks, indices it offers.
    fn fits(self, answer: &Answer) -> bool {
        match (self, answer) {
            (Tag::Approval(hunks), Answer::Approval(ApprovalAnswer::AllowHunks(selection))) => {
                hunks > 0 && selection.out_of_range(hunks).is_none()
            }
            (Tag::Approval(_), Answer::Approval(_)) => true,
            (tag, answer) => tag == Tag::of_answer(answer),
        }
    }

    fn of_answer(answer: &Answer) -> Tag {
        match answer {
            Answer::Approval(_) => Tag::Approval(0),
            Answer::Limit(_) => Tag::Limit,
            Answer::Plan(_) => Tag::Plan,
            Answer::Budget { .. } => Tag::Budget,
            Answer::Loop(_) => Tag::Loop,
        }
    }
}

/// The open questions.
#[derive(Debug, Clone)]
pub(crate) struct Questions {
    pending: Arc<Mutex<Pending>>,
    events: EventSink,
}

/// Withdraws a question when its asker stops waiting before an answer came.
struct Withdraw {
    pending: Arc<Mutex<Pending>>,
    events: EventSink,
    id: String,
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        let removed = lock(&self.pending).remove(&self.id);
        if removed.is_some() {
            self.events.send(RuntimeEvent::QuestionClosed {
                id: self.id.clone(),
            });
        }
    }
}

fn lock(pending: &Mutex<Pending>) -> std::sync::MutexGuard<'_, Pending> {
    pending.lock().unwrap_or_else(|p| p.into_inner())
}

impl Questions {
    pub(crate) fn new(events: EventSink) -> Self {
        Questions {
            pending: Arc::default(),
            events,
        }
    }

    /// Asks and waits. `None` when the question was closed without an answer.
    pub(crate) async fn ask(&self, kind: QuestionKind) -> Option<Answer> {
        let id = format!("q-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), (Tag::of_question(&kind), tx));
        let _withdraw = Withdraw {
            pending: self.pending.clone(),
            events: self.events.clone(),
            id: id.clone(),
        };
        self.events
            .send(RuntimeEvent::Question(Question { id, kind }));
        rx.await.ok()
    }

    /// Delivers an answer to the question `id`.
    pub(crate) fn answer(&self, id: &str, answer: Answer) -> Result<(), OpFailure> {
        let mut pending = lock(&self.pending);
        let Some((tag, _)) = pending.get(id) else {
            return Err(OpFailure::UnknownQuestion(id.to_string()));
        };
        if !tag.fits(&answer) {
            return Err(OpFailure::WrongAnswer(id.to_string()));
        }
        if let Some((_, tx)) = pending.remove(id) {
            let _ = tx.send(answer);
        }
        Ok(())
    }

    /// Closes every open question without an answer (nobody can answer any more).
    pub(crate) fn close_all(&self) {
        let closed: Vec<String> = lock(&self.pending).drain().map(|(id, _)| id).collect();
        for id in closed {
            self.events.send(RuntimeEvent::QuestionClosed { id });
        }
    }
}
