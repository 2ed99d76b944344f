//! `SessionStart` and `SessionEnd` hooks, run by the actor as a session opens (at start, after
//! `/clear`, on resume) and ends (before another takes its place, when the runtime stops). What a
//! `SessionStart` hook says is kept with the session and goes to the model with the next prompt.

use tokio_util::sync::CancellationToken;

use crate::hooks::HookEvent;
use crate::orchestrator::hook_points::{field, run_hooks};
use crate::runtime::actor::Actor;

impl Actor {
    /// Runs the `SessionStart` hooks of the current session; `source`: `startup`, `resume` or
    /// `clear`.
    pub(super) async fn session_started(&self, source: &str) {
        let agent = self.agent.clone();
        let fields = field("source", source);
        let cancel = CancellationToken::new();
        let verdict = run_hooks(
            &agent,
            &cancel,
            HookEvent::SessionStart,
            (&[source], fields),
        )
        .await;
        if !verdict.context.is_empty() {
            agent.session().lock().start_context = verdict.context;
        }
    }

    /// Runs the `SessionEnd` hooks of the current session; `reason`: `clear`, `resume`,
    /// `prompt_input_exit` or `other`.
    pub(super) async fn session_ending(&self, reason: &str) {
        let agent = self.agent.clone();
        let fields = field("reason", reason);
        let cancel = CancellationToken::new();
        run_hooks(&agent, &cancel, HookEvent::SessionEnd, (&[reason], fields)).await;
    }
}
