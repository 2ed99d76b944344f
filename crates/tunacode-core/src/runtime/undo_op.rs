//! `Op::Undo`: puts the workspace back as it was before a request of the current session changed it
//! (the last one, or the `to`-th last), off the async threads, and says what it restored.

use crate::checkpoints::CheckpointError;
use crate::runtime::actor::Actor;
use crate::runtime::events::{OpFailure, RuntimeEvent, Undone};

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
                    files: restored.into_iter().map(|r| (r.path, r.how)).collect(),
                }))
            }
            Ok(Err(CheckpointError::Nothing(message))) => self.fail(OpFailure::Invalid(message)),
            Ok(Err(e)) => self.fail(OpFailure::Invalid(e.to_string())),
            Err(e) => self.fail(OpFailure::Invalid(format!("internal error: {e}"))),
        }
    }
}

/// What an undo did, in one line per file, for the user.
pub fn describe_undo(undone: &Undone) -> String {
    if undone.files.is_empty() {
        return format!(
            "Undo: nothing had changed since before request {}.",
            undone.request_id
        );
    }
    let mut text = format!(
        "Undo: the workspace is back as it was before request {}:",
        undone.request_id
    );
    for (path, how) in &undone.files {
        text.push_str(&format!("\n  {how} {path}"));
    }
    text
}
