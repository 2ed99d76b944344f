//! The undo checkpoint of a request: taken once, before the first call that may change the
//! workspace (a write, or a command that is not known to only read) runs. Cancelling the request
//! kills the checkpoint's git processes.

use tokio_util::sync::CancellationToken;
use tunacode_protocol::{AgentEvent, NoticeLevel, ToolCallPart};
use tunacode_tools::{ToolKind, ToolSet};

use crate::agent::Agent;
use crate::checkpoints::Stop;

/// Whether this request recorded the workspace for undo yet.
#[derive(Debug, Default)]
pub(super) struct UndoPoint {
    taken: bool,
}

impl UndoPoint {
    /// Records the workspace for undo if `calls` may change it and request `request` has not yet. A
    /// failure is said (undo will not cover this request) and the request goes on.
    pub(super) async fn take(
        &mut self,
        agent: &Agent,
        request: &str,
        cancel: &CancellationToken,
        (tools, calls): (&ToolSet, &[ToolCallPart]),
    ) {
        let Some(store) = agent.checkpoints.clone() else {
            return;
        };
        if self.taken || !calls.iter().any(|c| may_change(tools, c)) {
            return;
        }
        self.taken = true;
        let session = agent.session.lock().id.clone();
        let request = request.to_string();
        let stop = Stop::default();
        let mut taking = {
            let stop = stop.clone();
            tokio::task::spawn_blocking(move || store.take(&session, &request, &stop))
        };
        let taken = tokio::select! {
            taken = &mut taking => taken,
            _ = cancel.cancelled() => {
                // Its git processes are killed with their group; wait for the thread to see it.
                stop.stop();
                let _ = taking.await;
                return;
            }
        };
        let failure = match taken {
            Ok(Ok(_)) => return,
            Ok(Err(e)) => e.to_string(),
            Err(e) => e.to_string(),
        };
        tracing::warn!(%failure, "undo checkpoint");
        agent.events.emit(AgentEvent::Notice {
            level: NoticeLevel::Warning,
            message: format!("No undo checkpoint for this request: {failure}"),
        });
    }
}

fn may_change(tools: &ToolSet, call: &ToolCallPart) -> bool {
    let Some(tool) = tools.get(&call.tool_name) else {
        return false;
    };
    match call.args_object() {
        Ok(args) => tool.classify(&args) != ToolKind::ReadOnly,
        Err(_) => false,
    }
}
