//! [`UndoOps`], the handler of `Op::Undo`: puts the workspace back as it was before a request of the
//! current session changed it (the last one, or the `to`-th last), off the async threads, and says
//! what it restored.

use std::sync::Arc;

use crate::checkpoints::{CheckpointError, Checkpoints};
use crate::runtime::blocking::off_thread;
use crate::runtime::events::{OpFailure, Undone, UndoneFile};

/// The undo handler: the checkpoints of this working directory.
pub(super) struct UndoOps {
    checkpoints: Arc<Checkpoints>,
}

impl UndoOps {
    /// A handler over `checkpoints`.
    pub(super) fn new(checkpoints: Arc<Checkpoints>) -> Self {
        UndoOps { checkpoints }
    }

    /// Undoes the `to`-th last request (the last when `None`) of `session`.
    pub(super) async fn undo(
        &self,
        session: String,
        to: Option<usize>,
    ) -> Result<Undone, OpFailure> {
        let store = self.checkpoints.clone();
        let to = to.unwrap_or(1).max(1);
        let (checkpoint, restored) = off_thread("undo", move || {
            store.undo(&session, to).map_err(|e| match e {
                CheckpointError::Nothing(message) => OpFailure::Invalid(message),
                e => OpFailure::Invalid(e.to_string()),
            })
        })
        .await?;
        Ok(Undone {
            request_id: checkpoint.request_id,
            files: restored
                .into_iter()
                .map(|r| UndoneFile {
                    path: r.path,
                    action: r.how.to_string(),
                })
                .collect(),
        })
    }
}
