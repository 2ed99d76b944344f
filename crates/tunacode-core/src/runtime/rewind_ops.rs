//! [`RewindOps`], the handler of undo, rewind, redo, the prompt list and fork: each waits for the
//! last turn's snapshots, works on a copy of the session off the async threads (git and files),
//! saves the session file and its tree, and hands the changed session back for the actor to
//! install.

use std::sync::Arc;

use tunacode_protocol::runtime::{Forked, RewindMode, Rewound};
use tunacode_store::SessionStore;

use crate::checkpoints::Checkpoints;
use crate::rewind::{self, RewindError};
use crate::runtime::blocking::off_thread;
use crate::runtime::events::OpFailure;
use crate::session::{Session, SessionHandle};

/// What a rewind asks for.
#[derive(Debug, Clone, Copy)]
pub(super) enum Step {
    /// Files back before the `to`-th last prompt that changed them.
    Undo(usize),
    /// Back to before prompt `to`.
    Rewind(usize, RewindMode),
    /// Forward to where the user was.
    Redo,
}

/// The rewind handler: the shadow store and the session files.
pub(super) struct RewindOps {
    checkpoints: Arc<Checkpoints>,
    store: SessionStore,
}

impl RewindOps {
    /// A handler over `checkpoints` and `store`.
    pub(super) fn new(checkpoints: Arc<Checkpoints>, store: SessionStore) -> Self {
        RewindOps { checkpoints, store }
    }

    /// Carries out `step` on the current session; the session as it is now and the report.
    pub(super) async fn step(
        &self,
        session: &SessionHandle,
        step: Step,
    ) -> Result<(Session, Rewound), OpFailure> {
        let _turns = self.checkpoints.turn_lock().lock_owned().await;
        let (checkpoints, store) = (self.checkpoints.clone(), self.store.clone());
        let mut copy = session.lock().clone();
        off_thread("rewind", move || {
            let rewound = match step {
                Step::Undo(to) => rewind::undo(&checkpoints, &mut copy, to),
                Step::Rewind(to, mode) => {
                    rewind::rewind(&checkpoints, &mut copy, to, mode, "rewind")
                }
                Step::Redo => rewind::redo(&checkpoints, &mut copy),
            }
            .map_err(failure)?;
            save(
                &store,
                &mut copy,
                rewound.mode.conversation() || rewound.kind == "redo",
            )?;
            Ok((copy, rewound))
        })
        .await
    }

    /// Forks the current session after prompt `at`; the new session (saved) and what was done.
    pub(super) async fn fork(
        &self,
        session: &SessionHandle,
        at: Option<usize>,
    ) -> Result<(Session, Forked), OpFailure> {
        let _turns = self.checkpoints.turn_lock().lock_owned().await;
        let store = self.store.clone();
        let original = session.clone();
        let copy = session.lock().clone();
        off_thread("fork", move || {
            let mut forked = rewind::fork(&copy, at).map_err(failure)?;
            let prompt = forked.tree.parent.as_ref().map_or(0, |p| p.prompt);
            save(&store, &mut forked, true)?;
            rewind::record_fork(&mut original.lock(), &forked, prompt);
            rewind::save_tree_now(&store, &original)
                .map_err(|e| OpFailure::Store(e.to_string()))?;
            let done = Forked {
                session_id: forked.id.clone(),
                parent: copy.id.clone(),
                prompt,
            };
            Ok((forked, done))
        })
        .await
    }
}

/// Saves `session`'s file (when `file`) and tree.
fn save(store: &SessionStore, session: &mut Session, file: bool) -> Result<(), OpFailure> {
    let io = |e: tunacode_store::StoreError| OpFailure::Store(e.to_string());
    if file {
        session.journal_base = Some(store.save(&session.to_file()).map_err(io)?);
        session.runtime.last_call = None;
    }
    store
        .save_tree(&session.project_id, &session.id, &session.tree)
        .map_err(io)
}

fn failure(e: RewindError) -> OpFailure {
    OpFailure::Invalid(e.to_string())
}
