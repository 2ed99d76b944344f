//! The sandbox as the runtime sets it up: whether the kernel can enforce the configured mode (checked
//! once, when the runtime opens), what the policy must ask about when it cannot, and the notice that
//! says so.

use std::ffi::OsString;

use tunacode_tools::{ExecPolicy, SandboxMode, SandboxSupport, sandbox_support};

use crate::egress::EgressProxy;

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
pub(super) fn describe_guards(support: &SandboxSupport) -> String {
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
