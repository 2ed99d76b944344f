//! The sandbox as the runtime sets it up: whether the kernel can enforce the configured mode (checked
//! once, when the runtime opens), what the policy must ask about when it cannot, and the notice that
//! says so.

use std::ffi::OsString;

use tunacode_tools::{ExecPolicy, SandboxMode, SandboxSupport, sandbox_support};

use crate::egress::EgressProxy;

use crate::runtime::events::OpFailure;
use crate::runtime::policy::SandboxState;
use crate::settings::RuntimeSettings;

/// The sandbox set up for the runtime.
pub(super) struct SandboxSetup {
    /// The exec policy commands run with.
    pub exec: ExecPolicy,
    /// The policy's view of the sandbox.
    pub state: SandboxState,
    /// Said to the user when the configured sandbox cannot be had as configured.
    pub notice: Option<String>,
    /// The egress proxy for the allowed hosts, when there are any (stops when dropped).
    pub proxy: Option<EgressProxy>,
}

/// Sets up the sandbox of `settings`: checks (once) that the kernel can enforce it, and starts the
/// egress proxy when hosts are allowed without the network.
pub(super) async fn sandbox_state(settings: &RuntimeSettings) -> SandboxSetup {
    let mut exec = settings.exec.clone();
    let mode = exec.sandbox.mode;
    let support = tokio::task::spawn_blocking(sandbox_support)
        .await
        .unwrap_or_default();
    let enforced = mode == SandboxMode::Off || support.landlock;
    let mut notice = (!enforced).then(|| {
        // Commands still run, unconfined, but only once the user approved each one.
        exec.sandbox.mode = SandboxMode::Off;
        format!(
            "This kernel offers no Landlock, so commands cannot run in the {} sandbox: every \
             command will be asked about, and refused in runs without a terminal (`--sandbox off` \
             runs them unconfined without asking).",
            mode.name()
        )
    });
    if enforced && mode != SandboxMode::Off && !support.namespaces {
        notice = Some(weaker_sandbox_notice());
    }
    let wants_proxy = exec.sandbox.mode != SandboxMode::Off
        && !exec.sandbox.network
        && !exec.sandbox.allowed_hosts.is_empty();
    let mut proxy = None;
    if wants_proxy {
        match EgressProxy::start(&exec.sandbox.allowed_hosts).await {
            Ok(started) => {
                exec.sandbox.proxy_port = Some(started.port());
                route_through(&mut exec, &started.url());
                proxy = Some(started);
            }
            Err(e) => notice = Some(format!("No network exceptions for commands: {e}")),
        }
    }
    SandboxSetup {
        exec,
        state: SandboxState { mode, enforced },
        notice,
        proxy,
    }
}

/// What a sandbox without namespaces does not enforce.
fn weaker_sandbox_notice() -> String {
    "This system does not let TunaCode create user namespaces, so the sandbox is weaker: commands \
     see other processes in /proc (their memory and environment stay closed to them), and protected \
     paths (git hooks and config, .tunacode/, .mcp.json, AGENTS.md) are only checked after each \
     command, not kept read-only. /permissions lists every guard."
        .to_string()
}

/// The guards of `support`, one line each, marked by whether they hold.
fn describe_guards(support: &SandboxSupport) -> String {
    support
        .guards()
        .iter()
        .map(|g| {
            let mark = if g.enforced { "yes" } else { "NO " };
            format!("  [{mark}] {}: {}", g.name, g.how)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Points commands at the proxy (`HTTP_PROXY`, `HTTPS_PROXY` and their lower-case forms).
fn route_through(exec: &mut ExecPolicy, url: &str) {
    let mut env: Vec<(OsString, OsString)> = match &exec.env {
        Some(env) => env.as_ref().clone(),
        None => std::env::vars_os().collect(),
    };
    let names = [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "http_proxy",
        "https_proxy",
        "NO_PROXY",
        "no_proxy",
    ];
    env.retain(|(k, _)| !names.iter().any(|n| k == n));
    for name in &names[..4] {
        env.push((OsString::from(name), OsString::from(url)));
    }
    exec.env = Some(std::sync::Arc::new(env));
}

impl crate::runtime::actor::Actor {
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
