//! [`SandboxOps`], the handler of `/sandbox` and `/permissions`: where commands run for the rest of
//! the session (it owns the egress proxy of the sandbox in force), and what the agent may do, as text.

use std::sync::Arc;

use tunacode_protocol::NoticeLevel;
use tunacode_tools::{ExecPolicy, SandboxMode, sandbox_support};

use crate::egress::EgressProxy;
use crate::runtime::events::OpFailure;
use crate::runtime::policy::Policy;
use crate::runtime::sandbox_setup::{SandboxSetup, describe_guards, sandbox_state};
use crate::settings::RuntimeSettings;

/// The sandbox handler: the egress proxy for the allowed hosts (stops when replaced or dropped).
pub(super) struct SandboxOps {
    egress: Option<EgressProxy>,
}

/// A sandbox mode that took effect.
pub(super) struct SandboxChanged {
    /// How commands run from now on.
    pub(super) exec: Arc<ExecPolicy>,
    /// Said when the mode cannot be had as asked.
    pub(super) notice: Option<(NoticeLevel, String)>,
}

impl SandboxOps {
    /// A handler keeping `egress` running.
    pub(super) fn new(egress: Option<EgressProxy>) -> Self {
        SandboxOps { egress }
    }

    /// `/sandbox MODE`: commands of the rest of this session run in `mode`; `settings` and `policy`
    /// learn it.
    pub(super) async fn set_mode(
        &mut self,
        mode: &str,
        settings: &mut RuntimeSettings,
        policy: &Policy,
    ) -> Result<SandboxChanged, OpFailure> {
        let Some(parsed) = SandboxMode::parse(mode) else {
            return Err(OpFailure::Invalid(format!(
                "unknown sandbox mode `{mode}` (use workspace-write, read-only or off)"
            )));
        };
        settings.exec.sandbox.mode = parsed;
        let SandboxSetup {
            exec,
            state,
            notice,
            proxy,
        } = sandbox_state(settings).await;
        policy.set_sandbox(state);
        self.egress = proxy;
        Ok(SandboxChanged {
            exec: Arc::new(exec),
            notice: notice.map(|n| (NoticeLevel::Warning, n)),
        })
    }
}

/// `/permissions`: the sandbox as enforced here (`live`: how commands run now), and the rules.
pub(super) fn describe_permissions(
    settings: &RuntimeSettings,
    policy: &Policy,
    live: &ExecPolicy,
) -> String {
    let exec = &settings.exec;
    let state = policy.sandbox_state();
    let sandbox = match (state.mode, state.enforced) {
        (SandboxMode::Off, _) => "off: commands run unconfined".to_string(),
        (mode, false) => format!(
            "{} wanted, but this kernel has no Landlock: every command asks",
            mode.name()
        ),
        (SandboxMode::ReadOnly, true) => "read-only: commands write nowhere".to_string(),
        (mode, true) => {
            let roots: Vec<String> = exec
                .sandbox
                .writable_roots
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            format!(
                "{}: commands write only in {}",
                mode.name(),
                roots.join(", ")
            )
        }
    };
    let network = if exec.sandbox.network || state.mode == SandboxMode::Off {
        "network allowed".to_string()
    } else if live.sandbox.proxy_port.is_some() {
        format!(
            "network refused except {} (through TunaCode's proxy)",
            exec.sandbox.allowed_hosts.join(", ")
        )
    } else {
        "network refused".to_string()
    };
    let hidden = exec.env.as_ref().map_or(0, |kept| {
        std::env::vars_os()
            .filter(|(name, _)| !kept.iter().any(|(k, _)| k == name))
            .count()
    });
    // Probed when the runtime opened (`sandbox_state`), so this only reads the cached answer.
    let guards = describe_guards(&sandbox_support());
    let environment = environment_line(hidden);
    format!(
        "Sandbox: {sandbox}; {network}.\nGuards this kernel enforces for sandboxed commands:\n\
         {guards}\nEnvironment: {environment} (settings.shell_env adjusts this).\nDangerous commands \
         (rm -rf outside the workspace, git push --force, sudo, …) always ask.\nPermission rules \
         (deny, then ask, then allow):\n{}",
        policy.describe_rules()
    )
}

/// What commands see of the environment, with `hidden` variables that look like secrets left out.
fn environment_line(hidden: usize) -> String {
    match hidden {
        0 => "commands see it whole (nothing in it looks like a secret)".to_string(),
        1 => "commands see it without the 1 variable that looks like a secret".to_string(),
        n => format!("commands see it without the {n} variables that look like secrets"),
    }
}

#[cfg(test)]
mod environment_tests {
    #[test]
    fn the_environment_line_counts_in_words_a_person_reads() {
        assert!(super::environment_line(0).ends_with("(nothing in it looks like a secret)"));
        assert!(super::environment_line(1).contains("the 1 variable that looks"));
        assert!(super::environment_line(3).contains("the 3 variables that look"));
        assert!(!super::environment_line(0).contains("0 variable"));
    }
}
