//! [`Requests`]: the runtime's busy rules. One request (or compaction) runs at a time; messages and
//! compactions sent meanwhile wait in order; an interrupt stops the running one and drops what waits;
//! operations that change the session are refused while one runs (`Actor::busy`).

use std::collections::VecDeque;

use tokio::task::{JoinError, JoinHandle};
use tokio_util::sync::CancellationToken;

use crate::agent::RunOutcome;
use crate::error::RequestError;
use crate::mentions::Attachment;

/// How a request's task ended.
pub(super) type Joined = Result<Result<RunOutcome, RequestError>, JoinError>;

/// A request in flight.
pub(super) struct Running {
    /// Cancels it (an interrupt, a shutdown).
    pub(super) cancel: CancellationToken,
    /// Its task.
    pub(super) task: JoinHandle<Result<RunOutcome, RequestError>>,
}

/// Work waiting for the running request to end, in order.
pub(super) enum Work {
    /// A user message.
    Message(Message),
    /// A compaction (`focus`: what the summary should keep).
    Compact(Option<String>),
}

/// A user message and the files handed over with it.
pub(super) struct Message {
    /// What the user typed.
    pub(super) text: String,
    /// Files an editor handed over with it.
    pub(super) attachments: Vec<Attachment>,
    /// Images given with it.
    pub(super) images: Vec<tunacode_protocol::runtime::ImageInput>,
}

/// The running request and what waits behind it.
#[derive(Default)]
pub(super) struct Requests {
    queue: VecDeque<Work>,
    running: Option<Running>,
    finishing: bool,
}

impl Requests {
    /// Whether a request runs.
    pub(super) fn busy(&self) -> bool {
        self.running.is_some()
    }

    /// How many wait.
    pub(super) fn pending(&self) -> usize {
        self.queue.len()
    }

    /// Puts `work` in line behind the running request.
    pub(super) fn wait(&mut self, work: Work) {
        self.queue.push_back(work);
    }

    /// The next waiting work, when nothing runs.
    pub(super) fn next(&mut self) -> Option<Work> {
        match self.running {
            Some(_) => None,
            None => self.queue.pop_front(),
        }
    }

    /// `running` is now in flight.
    pub(super) fn started(&mut self, running: Running) {
        self.running = Some(running);
    }

    /// Stops the running request and drops what waits; whether anything was dropped.
    pub(super) fn interrupt(&mut self) -> bool {
        let Some(running) = &self.running else {
            return false;
        };
        running.cancel.cancel();
        let dropped = !self.queue.is_empty();
        self.queue.clear();
        dropped
    }

    /// No more work will come (`Finish`).
    pub(super) fn finish(&mut self) {
        self.finishing = true;
    }

    /// Finishing, and nothing runs or waits.
    pub(super) fn done(&self) -> bool {
        self.finishing && self.running.is_none() && self.queue.is_empty()
    }

    /// For a shutdown: drops what waits and hands over the running request, cancelled.
    pub(super) fn stop(&mut self) -> Option<Running> {
        self.queue.clear();
        let running = self.running.take()?;
        running.cancel.cancel();
        Some(running)
    }

    /// Waits for the running request to end (never resolves when none runs); it no longer runs then.
    pub(super) async fn ended(&mut self) -> Joined {
        let joined = match &mut self.running {
            Some(r) => (&mut r.task).await,
            None => std::future::pending().await,
        };
        self.running = None;
        joined
    }
}
