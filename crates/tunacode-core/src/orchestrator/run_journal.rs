//! The journal a request writes to ([`RunJournal`]) and where a batch's finished tool results go
//! ([`ResultSink`]): each written on a blocking thread before the call returns, fsynced in the
//! background.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tunacode_protocol::Part;
use tunacode_store::{Journal, JournalBase, JournalEntry, JournalRecord};

/// Where a batch's finished tool results go before the whole answer is complete.
#[derive(Debug, Clone)]
pub(crate) struct ResultSink {
    pub(crate) journal: Arc<RunJournal>,
    pub(crate) base: JournalBase,
    /// The index the batch's answers will have in the session's messages.
    pub(crate) at: usize,
    /// The call ids of the results written, in the order they were written.
    pub(crate) written: Arc<std::sync::Mutex<Vec<String>>>,
}

impl ResultSink {
    /// Makes one finished tool result durable (off the async threads). A failure is logged; the
    /// result still goes to the model and into the session file at the end of the request.
    pub(crate) async fn record(&self, part: &Part) {
        let entry = JournalEntry {
            at: self.at,
            record: JournalRecord::ToolResult(part.clone()),
        };
        if write(self.journal.clone(), self.base.clone(), vec![entry])
            .await
            .is_ok()
            && let Some(id) = part.tool_call_id()
        {
            self.written
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(id.to_string());
        }
    }

    /// Whether the journal already holds exactly these answers, in this order (so the whole answer
    /// need not be written again).
    pub(crate) fn holds(&self, answers: &[Part]) -> bool {
        let written = self.written.lock().unwrap_or_else(|p| p.into_inner());
        written.len() == answers.len()
            && answers
                .iter()
                .zip(written.iter())
                .all(|(part, id)| part.tool_call_id() == Some(id.as_str()))
    }
}

/// How long the background fsync waits to gather writes: the most a power cut can lose.
const SYNC_DELAY: std::time::Duration = std::time::Duration::from_millis(5);

/// The journal of a run, with its background fsync.
#[derive(Debug)]
pub(crate) struct RunJournal {
    pub(crate) journal: Arc<Journal>,
    /// A syncer is running.
    pub(crate) syncing: AtomicBool,
    /// Lines were written since the running syncer started.
    pub(crate) dirty: AtomicBool,
}

impl RunJournal {
    pub(crate) fn new(journal: Journal) -> Arc<Self> {
        Arc::new(RunJournal {
            journal: Arc::new(journal),
            syncing: AtomicBool::new(false),
            dirty: AtomicBool::new(false),
        })
    }

    /// Fsyncs in the background, at most one syncer at a time, a few milliseconds after the first
    /// unsynced write so the writes of several turns share one fsync (group commit); writes made
    /// while it runs are synced by its next round.
    fn schedule_sync(self: &Arc<Self>) {
        self.dirty.store(true, Ordering::SeqCst);
        if self.syncing.swap(true, Ordering::SeqCst) {
            return;
        }
        let this = self.clone();
        tokio::task::spawn_blocking(move || {
            loop {
                std::thread::sleep(SYNC_DELAY);
                this.dirty.store(false, Ordering::SeqCst);
                if let Err(e) = this.journal.sync() {
                    tracing::error!(error = %e, "session journal fsync");
                }
                this.syncing.store(false, Ordering::SeqCst);
                // Another write came in meanwhile: sync again unless a new syncer took over.
                if !this.dirty.load(Ordering::SeqCst) || this.syncing.swap(true, Ordering::SeqCst) {
                    break;
                }
            }
        });
    }
}

/// Appends entries on a blocking thread (written before this returns), then fsyncs in the background.
pub(super) async fn write(
    journal: Arc<RunJournal>,
    base: JournalBase,
    entries: Vec<JournalEntry>,
) -> Result<(), String> {
    let writer = journal.journal.clone();
    let result = tokio::task::spawn_blocking(move || writer.append(&base, &entries)).await;
    match result {
        Ok(Ok(())) => {
            journal.schedule_sync();
            Ok(())
        }
        Ok(Err(e)) => {
            tracing::error!(error = %e, "session journal");
            Err(e.to_string())
        }
        Err(e) => Err(e.to_string()),
    }
}
