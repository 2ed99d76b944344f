//! The sandbox as the runtime sets it up: whether the kernel can enforce the configured mode (checked
//! once, when the runtime opens), what the policy must ask about when it cannot, and the notice that
//! says so.

use tunacode_tools::{ExecPolicy, SandboxMode, landlock_available};

use crate::runtime::policy::SandboxState;
use crate::settings::RuntimeSettings;

/// The exec policy commands run with, the policy's view of the sandbox, and a notice for the user
/// when the configured sandbox cannot be enforced here.
pub(super) async fn sandbox_state(
    settings: &RuntimeSettings,
) -> (ExecPolicy, SandboxState, Option<String>) {
    let mut exec = settings.exec.clone();
    let mode = exec.sandbox.mode;
    let enforced = mode == SandboxMode::Off
        || tokio::task::spawn_blocking(landlock_available)
            .await
            .unwrap_or(false);
    let notice = (!enforced).then(|| {
        // Commands still run, unconfined, but only once the user approved each one.
        exec.sandbox.mode = SandboxMode::Off;
        format!(
            "This kernel offers no Landlock, so commands cannot run in the {} sandbox: every \
             command will be asked about, and refused in runs without a terminal (`--sandbox off` \
             runs them unconfined without asking).",
            mode.name()
        )
    });
    (exec, SandboxState { mode, enforced }, notice)
}
