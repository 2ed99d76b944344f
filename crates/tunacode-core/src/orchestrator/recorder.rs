//! [`Recorder`]: the run's observer that keeps the session's journal up with its messages. It knows
//! which messages are written as they are now (a mark), writes the rest, and says once when a write
//! failed; the [`Transcript`](super::transcript::Transcript) tells it what changed.

use std::sync::Arc;

use tunacode_protocol::{AgentEvent, Message, NoticeLevel};
use tunacode_store::{JournalBase, JournalEntry, JournalRecord};

use super::run_journal::{ResultSink, RunJournal, write};
use crate::events::EventSink;

/// What the journal holds of one run.
#[derive(Debug, Default)]
pub(super) struct Recorder {
    /// The session's journal (none when the session is not stored).
    journal: Option<Arc<RunJournal>>,
    /// Run messages before this index are in the journal as they are now.
    mark: usize,
    /// A failed write was reported.
    warned: bool,
}

impl Recorder {
    /// A recorder over `journal`, the first `written` messages already in it (the checkpoint).
    pub(super) fn new(journal: Option<Arc<RunJournal>>, written: usize) -> Self {
        Recorder {
            journal,
            mark: written,
            warned: false,
        }
    }

    /// Writes every message not yet in the journal (and those changed since); a failure is said once.
    pub(super) async fn flush(
        &mut self,
        messages: &[Message],
        base: Option<JournalBase>,
        events: &EventSink,
    ) {
        let (Some(journal), Some(base)) = (self.journal.clone(), base) else {
            return;
        };
        let end = messages.len();
        if self.mark >= end {
            return;
        }
        let entries = (self.mark..end)
            .map(|at| JournalEntry {
                at,
                record: JournalRecord::Message(messages[at].clone()),
            })
            .collect();
        match write(journal, base, entries).await {
            Ok(()) => self.mark = end,
            Err(e) if !self.warned => {
                self.warned = true;
                events.emit(AgentEvent::Notice {
                    level: NoticeLevel::Warning,
                    message: format!(
                        "The session journal could not be written ({e}); if TunaCode is killed \
                         before this request ends, its messages are lost."
                    ),
                });
            }
            Err(_) => {}
        }
    }

    /// The answers just added (the last of `len` messages) are in the journal already when their
    /// results were `written` one by one in call order.
    pub(super) fn answers_added(&mut self, written: bool, len: usize) {
        if written && self.mark + 1 == len {
            self.mark = len;
        }
    }

    /// The message at `index` and after changed in place: they are written again.
    pub(super) fn changed_from(&mut self, index: usize) {
        self.mark = self.mark.min(index);
    }

    /// Where the next batch's tool results go (the batch's answers will be message `at`).
    pub(super) fn result_sink(&self, base: Option<JournalBase>, at: usize) -> Option<ResultSink> {
        Some(ResultSink {
            journal: self.journal.clone()?,
            base: base?,
            at,
            written: Arc::default(),
        })
    }
}
