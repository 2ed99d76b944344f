//! Durability during a request: every message of the run is written to the session's journal as soon
//! as it is complete (the user prompt and each model response before the next model call, each tool
//! result as it finishes), and the session file is the checkpoint the journal follows. A killed
//! process loses at most the response that was streaming; loading replays the journal.

use tunacode_protocol::Part;
use tunacode_store::JournalBase;

use super::RequestRun;
use super::run_journal::ResultSink;
use crate::error::RequestError;

impl RequestRun<'_> {
    /// Writes every message of the run not yet in the journal (and those changed since).
    pub(super) async fn journal_flush(&mut self) {
        let base = self.journal_base();
        self.recorder
            .flush(self.history.messages(), base, &self.agent.events)
            .await;
    }

    /// The answers just added are in the journal already when their results were written one by one
    /// in call order.
    pub(super) fn journal_answers(&mut self, sink: Option<&ResultSink>, answers: &[Part]) {
        self.recorder
            .answers_added(sink, answers, self.history.messages().len());
    }

    /// The history changed in place from `index` on (a prompt joined, outputs pruned, turns
    /// compacted, a clean-up): the journal rewrites from there and the serialized messages are
    /// forgotten from there.
    pub(super) fn journal_touch(&mut self, index: usize) {
        self.recorder.changed_from(index);
        self.history.changed_from(index);
    }

    fn journal_base(&self) -> Option<JournalBase> {
        self.agent.session.lock().journal_base.clone()
    }

    /// Where the next batch's tool results go.
    pub(super) fn result_sink(&self) -> Option<ResultSink> {
        self.recorder
            .result_sink(self.journal_base(), self.history.messages().len())
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
