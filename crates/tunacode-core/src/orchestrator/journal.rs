//! Durability during a request: every message of the run is written to the session's journal as soon
//! as it is complete (the user prompt and each model response before the next model call, each tool
//! result as it finishes), and the session file is the checkpoint the journal follows. A killed
//! process loses at most the response that was streaming; loading replays the journal.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tunacode_protocol::{AgentEvent, NoticeLevel, Part};
use tunacode_store::{Journal, JournalBase, JournalEntry, JournalRecord};

use super::RequestRun;
use crate::error::RequestError;

/// Where a batch's finished tool results go before the whole answer is complete.
#[derive(Debug, Clone)]
pub(crate) struct ResultSink {
    journal: Arc<RunJournal>,
    base: JournalBase,
    /// The index the batch's answers will have in the session's messages.
    at: usize,
    /// The call ids of the results written, in the order they were written.
    written: Arc<std::sync::Mutex<Vec<String>>>,
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
    journal: Arc<Journal>,
    /// A syncer is running.
    syncing: AtomicBool,
    /// Lines were written since the running syncer started.
    dirty: AtomicBool,
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
async fn write(
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
