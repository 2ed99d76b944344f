//! Durability during a request: every message of the run is written to the session's journal as soon
//! as it is complete (the user prompt and each model response before the next model call, each tool
//! result as it finishes), and the session file is the checkpoint the journal follows. A killed
//! process loses at most the response that was streaming; loading replays the journal.

use std::sync::Arc;

use tunacode_protocol::{AgentEvent, NoticeLevel, Part};
use tunacode_store::{JournalBase, JournalEntry, JournalRecord};

use super::RequestRun;
use super::run_journal::{ResultSink, write};
use crate::error::RequestError;

impl RequestRun<'_> {
    /// Writes every message of the run not yet in the journal (and those changed since).
    pub(super) async fn journal_flush(&mut self) {
        let (Some(journal), Some(base)) = (self.journal.clone(), self.journal_base()) else {
            return;
        };
        let end = self.run_messages.len();
        if self.journal_mark >= end {
            return;
        }
        let entries = (self.journal_mark..end)
            .map(|at| JournalEntry {
                at,
                record: JournalRecord::Message(self.run_messages[at].clone()),
            })
            .collect();
        match write(journal, base, entries).await {
            Ok(()) => self.journal_mark = end,
            Err(e) if !self.journal_warned => {
                self.journal_warned = true;
                self.agent.events.emit(AgentEvent::Notice {
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

    /// The answers just added are in the journal already when their results were written one by one
    /// in call order.
    pub(super) fn journal_answers(&mut self, sink: Option<&ResultSink>, answers: &[Part]) {
        if sink.is_some_and(|s| s.holds(answers))
            && self.journal_mark + 1 == self.run_messages.len()
        {
            self.journal_mark = self.run_messages.len();
        }
    }

    /// The run's message at `index` changed (a prompt joined a trailing request): write it again.
    /// The history changed in place from `index` on (a prompt joined, outputs pruned, turns
    /// compacted, a clean-up): the journal rewrites from there and the serialized messages are
    /// forgotten from there.
    pub(super) fn journal_touch(&mut self, index: usize) {
        self.journal_mark = self.journal_mark.min(index);
        self.message_cache.invalidate_from(index);
    }

    fn journal_base(&self) -> Option<JournalBase> {
        self.agent.session.lock().journal_base.clone()
    }

    /// Where the next batch's tool results go.
    pub(super) fn result_sink(&self) -> Option<ResultSink> {
        Some(ResultSink {
            journal: self.journal.clone()?,
            base: self.journal_base()?,
            at: self.run_messages.len(),
            written: Arc::default(),
        })
    }

    /// Saves the session file (the checkpoint: the journal restarts after it), off the async threads.
    pub(super) async fn save(&self) -> Result<(), RequestError> {
        let Some(store) = self.agent.store.clone() else {
            return Ok(());
        };
        let file = self.agent.session.lock().to_file();
        let base = tokio::task::spawn_blocking(move || store.save(&file))
            .await
            .map_err(|e| RequestError::Internal(e.to_string()))??;
        self.agent.session.lock().journal_base = Some(base);
        Ok(())
    }
}
