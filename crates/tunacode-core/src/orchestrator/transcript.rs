//! [`Transcript`]: the request's history with its journal as an observer. Every change goes through
//! it, so the journal learns of each one without the steps saying so: appended messages are written
//! at the next [`Transcript::flush`], a change in place rewrites the journal from where it began.
//! Every message of the run is durable as soon as it is complete (the user prompt and each model
//! response before the next model call, each tool result as it finishes); the session file is the
//! checkpoint the journal follows, so a killed process loses at most the response that was streaming.

use std::sync::Arc;

use tunacode_llm::MessageCache;
use tunacode_protocol::{Message, Part};
use tunacode_store::JournalBase;

use super::recorder::Recorder;
use super::run_history::RunHistory;
use super::run_journal::ResultSink;
use crate::agent::Agent;
use crate::error::RequestError;
use crate::history::run_cleanup_loop;

/// The run's history and what of it the journal holds.
#[derive(Debug, Default)]
pub(super) struct Transcript {
    history: RunHistory,
    recorder: Recorder,
}

impl Transcript {
    /// A transcript over the prepared `history`, whose messages the journal already holds.
    pub(super) fn new(history: RunHistory, recorder: Recorder) -> Self {
        Transcript { history, recorder }
    }

    /// The messages (a cheap clone shares them).
    pub(super) fn messages(&self) -> &Arc<Vec<Message>> {
        self.history.messages()
    }

    /// Names the state of the history (unique in the process): the same while the history is.
    pub(super) fn generation(&self) -> u64 {
        self.history.generation()
    }

    /// Appends a complete message.
    pub(super) fn push(&mut self, message: Message) {
        self.history.edit().push(message);
    }

    /// Adds a user prompt, joining a trailing request so requests never follow each other.
    pub(super) fn add_user_prompt(&mut self, text: String) {
        self.add_prompt_part(Part::user_prompt(text));
    }

    /// Adds a prompt part (a marked one: the user's prompt), as [`Transcript::add_user_prompt`].
    pub(super) fn add_prompt_part(&mut self, prompt: Part) {
        if let Some(changed) = self.history.add_user_prompt(prompt) {
            self.changed_from(changed);
        }
    }

    /// Changes the history in place; `change` returns the first index it changed, or `None` when it
    /// changed nothing (the history then keeps its generation).
    pub(super) fn rewrite<T>(
        &mut self,
        change: impl FnOnce(&mut Vec<Message>) -> Option<(T, usize)>,
    ) -> Option<T> {
        let (result, first) = self.history.edit_if(change)?;
        self.changed_from(first);
        Some(result)
    }

    /// Removes dangling tool calls and joins what that leaves (after an interruption).
    pub(super) fn clean_up(&mut self) {
        run_cleanup_loop(self.history.edit());
        self.changed_from(0);
    }

    /// The whole history is to be checked again (it was rewritten).
    pub(super) fn recheck_all(&mut self) {
        self.history.recheck_all();
    }

    /// Checks the invariants of what was added since the last check; a broken history is cleaned
    /// and written again.
    pub(super) fn check_new_messages(&mut self) {
        if self.history.check_new() {
            self.changed_from(0);
        }
    }

    /// Records a tool-call id; `false` when the history already has it.
    pub(super) fn new_call_id(&mut self, id: &str) -> bool {
        self.history.new_call_id(id)
    }

    /// The body cache the model requests of this run share.
    pub(super) fn cache(&self) -> Arc<MessageCache> {
        self.history.cache()
    }

    /// Writes every message of the run not yet in the journal (and those changed since).
    pub(super) async fn flush(&mut self, agent: &Agent) {
        let base = journal_base(agent);
        self.recorder
            .flush(self.history.messages(), base, &agent.events)
            .await;
    }

    /// Appends a batch's tool answers; they are in the journal already when `sink` wrote their
    /// results one by one in call order.
    pub(super) fn push_answers(&mut self, sink: Option<&ResultSink>, answers: Vec<Part>) {
        let written = sink.is_some_and(|s| s.holds(&answers));
        self.push(Message::request(answers));
        self.recorder
            .answers_added(written, self.history.messages().len());
    }

    /// Where the next batch's tool results go.
    pub(super) fn result_sink(&self, agent: &Agent) -> Option<ResultSink> {
        self.recorder
            .result_sink(journal_base(agent), self.history.messages().len())
    }

    /// Seed 000 §3.4: the run's messages are authoritative; messages appended from outside during the
    /// run are kept after them.
    pub(super) fn persist(&self, agent: &Agent) {
        let mut session = agent.session.lock();
        session.messages = self.history.merged_with(&session.messages);
        session.update_token_count();
    }

    /// The messages from `index` on changed in place: the journal rewrites them and the kept body
    /// is cut back before them.
    fn changed_from(&mut self, index: usize) {
        self.recorder.changed_from(index);
        self.history.changed_from(index);
    }
}

fn journal_base(agent: &Agent) -> Option<JournalBase> {
    agent.session.lock().journal_base.clone()
}

/// Saves the session file (the checkpoint: the journal restarts after it), off the async threads.
pub(super) async fn save_session(agent: &Agent) -> Result<(), RequestError> {
    let Some(store) = agent.store.clone() else {
        return Ok(());
    };
    let file = agent.session.lock().to_file();
    let base = tokio::task::spawn_blocking(move || store.save(&file))
        .await
        .map_err(|e| RequestError::Internal(e.to_string()))??;
    agent.session.lock().journal_base = Some(base);
    Ok(())
}
