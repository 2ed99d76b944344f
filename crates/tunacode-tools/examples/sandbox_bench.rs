//! What the sandbox costs a command (`bench/run.sh`): `run_command true` through the tool, many times,
//! unconfined (its own session and reaper only) and in the workspace-write sandbox (Landlock rules with
//! the read allow list around the user's real secret paths, the seccomp filter, and where the kernel
//! allows the user, PID and mount namespaces with their mounts, all built for each command and switched
//! on in the child). Prints the median and mean per command of each, and the difference.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio_util::sync::CancellationToken;
use tunacode_tools::{
    ExecPolicy, ProtectedPaths, SandboxMode, SandboxPolicy, SecretPaths, Tool, ToolContext,
    ToolSet, Workspace, sandbox_support,
};

const RUNS: usize = 300;

async fn time(tool: &Arc<dyn Tool>, ctx: &ToolContext) -> Vec<Duration> {
    let Some(args) = json!({"command": "true"}).as_object().cloned() else {
        return Vec::new();
    };
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let start = Instant::now();
        if let Err(e) = tool.call(args.clone(), ctx).await {
            eprintln!("run_command failed: {e}");
            std::process::exit(1);
        }
        times.push(start.elapsed());
    }
    times.sort();
    times
}

fn describe(label: &str, times: &[Duration]) -> Duration {
    let median = times[times.len() / 2];
    let mean = times.iter().sum::<Duration>() / times.len() as u32;
    println!(
        "{label}: median {median:?}, mean {mean:?} per command ({} runs)",
        times.len()
    );
    median
}

#[tokio::main]
async fn main() {
    let dir = std::env::temp_dir();
    let tools = ToolSet::builtin();
    let Some(tool) = tools.get("run_command") else {
        eprintln!("no run_command tool");
        std::process::exit(1);
    };
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let secrets = Arc::new(SecretPaths::new(home.as_deref(), &[], &[]));
    let protected = Arc::new(ProtectedPaths::new(vec![dir.clone()], Vec::new()));
    println!("{:?}", sandbox_support());
    let context = |mode| ToolContext {
        workspace: Workspace::new(&dir),
        cancel: CancellationToken::new(),
        exec: Arc::new(ExecPolicy {
            sandbox: SandboxPolicy {
                mode,
                writable_roots: vec![dir.clone()],
                network: false,
                proxy_port: None,
                allowed_hosts: Vec::new(),
                secrets: secrets.clone(),
                protected: protected.clone(),
            },
            env: None,
        }),
        output: None,
        call_id: String::new(),
    };
    let off = describe("unconfined", &time(&tool, &context(SandboxMode::Off)).await);
    let on = describe(
        "workspace-write sandbox",
        &time(&tool, &context(SandboxMode::WorkspaceWrite)).await,
    );
    println!(
        "sandbox cost per command (median difference): {:?}",
        on.saturating_sub(off)
    );
    // Of which, in the parent: the ruleset with the read allow list, the mount plan, the snapshot of
    // the protected paths.
    let policy = context(SandboxMode::WorkspaceWrite).exec.sandbox.clone();
    let mut prepares: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            let prepared = policy.prepare(false);
            let took = start.elapsed();
            drop(prepared);
            took
        })
        .collect();
    prepares.sort();
    describe("  of which preparing in the parent", &prepares);
}
