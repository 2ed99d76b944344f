//! `/sandbox` and `/permissions`: where commands run for the rest of the session, and what the agent
//! may do, as text.

use tunacode_tools::{SandboxMode, sandbox_support};

use crate::runtime::actor::Actor;
use crate::runtime::events::OpFailure;
use crate::runtime::sandbox_setup::{SandboxSetup, describe_guards, sandbox_state};

impl Actor {
    /// `/sandbox MODE`: commands of the rest of this session run in `mode`.
    pub(super) async fn on_set_sandbox(&mut self, mode: &str) {
        if self.busy("change the sandbox") {
            return;
        }
        let Some(parsed) = SandboxMode::parse(mode) else {
            return self.fail(OpFailure::Invalid(format!(
                "unknown sandbox mode `{mode}` (use workspace-write, read-only or off)"
            )));
        };
        self.parts.settings.exec.sandbox.mode = parsed;
        let SandboxSetup {
            exec,
            state,
            notice,
            proxy,
        } = sandbox_state(&self.parts.settings).await;
        self.parts.policy.set_sandbox(state);
        self.parts.exec = std::sync::Arc::new(exec);
        self.parts.egress = proxy;
        self.agent = std::sync::Arc::new(self.agent.with_exec(self.parts.exec.clone()));
        if let Some(message) = notice {
            self.parts
                .events
                .emit(tunacode_protocol::AgentEvent::Notice {
                    level: tunacode_protocol::NoticeLevel::Warning,
                    message,
                });
        }
        self.on_describe_permissions();
    }

    /// `/permissions`: the sandbox as enforced here, and the rules.
    pub(super) fn on_describe_permissions(&self) {
        let exec = &self.parts.settings.exec;
        let state = self.parts.policy.sandbox_state();
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
        let live = &self.parts.exec;
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
        let text = format!(
            "Sandbox: {sandbox}; {network}.\nGuards this kernel enforces for sandboxed commands:\n\
             {guards}\nEnvironment: commands see it without {hidden} \
             variable(s) that look like secrets (settings.shell_env adjusts this).\nDangerous commands \
             (rm -rf outside the workspace, git push --force, sudo, …) always ask.\nPermission rules \
             (deny, then ask, then allow):\n{}",
            self.parts.policy.describe_rules()
        );
        self.parts
            .events
            .send(crate::runtime::events::RuntimeEvent::Permissions(text));
    }
}
