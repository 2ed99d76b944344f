//! `Op::Undo`: puts the workspace back as it was before a request of the current session changed it
//! (the last one, or the `to`-th last), off the async threads, and says what it restored.

use crate::checkpoints::CheckpointError;
use crate::runtime::actor::Actor;
use crate::runtime::events::{OpFailure, RuntimeEvent, Undone, UndoneFile};

impl Actor {
    pub(super) async fn on_undo(&mut self, to: Option<usize>) {
        if self.busy("undo") {
            return;
        }
        let store = self.parts.checkpoints.clone();
        let session = self.agent.session().lock().id.clone();
        let to = to.unwrap_or(1).max(1);
        let undone = tokio::task::spawn_blocking(move || store.undo(&session, to)).await;
        match undone {
            Ok(Ok((checkpoint, restored))) => {
                self.parts.events.send(RuntimeEvent::Undone(Undone {
                    request_id: checkpoint.request_id,
                    files: restored
                        .into_iter()
                        .map(|r| UndoneFile {
                            path: r.path,
                            action: r.how.to_string(),
                        })
                        .collect(),
                }))
            }
            Ok(Err(CheckpointError::Nothing(message))) => self.fail(OpFailure::Invalid(message)),
            Ok(Err(e)) => self.fail(OpFailure::Invalid(e.to_string())),
            Err(e) => self.fail(OpFailure::Invalid(format!("internal error: {e}"))),
        }
    }
}
