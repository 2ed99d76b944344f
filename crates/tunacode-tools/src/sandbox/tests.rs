//! The sandbox on this kernel (Landlock ABI 7): writes outside the writable roots and network sockets
//! are refused, the workspace and the device files stay usable.

use std::net::TcpListener;
use std::path::Path;

use super::*;

fn policy(mode: SandboxMode, root: &Path) -> SandboxPolicy {
    SandboxPolicy {
        mode,
        writable_roots: vec![root.to_path_buf()],
        network: false,
        proxy_port: None,
        allowed_hosts: Vec::new(),
        ..SandboxPolicy::default()
    }
}

/// Runs `script` with `sh -c` under `policy`; its exit code and stderr.
async fn run(policy: &SandboxPolicy, script: &str) -> (i32, String) {
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c").arg(script);
    let prepared = policy.prepare(false).expect("the sandbox is set up");
    prepared.install(&mut cmd);
    let out = cmd.output().await.expect("sh runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn workspace_write_allows_the_workspace_and_refuses_elsewhere_and_the_network() {
    assert!(landlock_available(), "this kernel offers Landlock");
    let ws = tempfile::tempdir().expect("workspace");
    let elsewhere = tempfile::tempdir().expect("another dir");
    let p = policy(SandboxMode::WorkspaceWrite, ws.path());

    let inside = ws.path().join("made.txt");
    let (code, err) = run(
        &p,
        &format!("echo hi > {} && echo ok > /dev/null", inside.display()),
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&inside).expect("written"), "hi\n");

    let outside = elsewhere.path().join("nope.txt");
    let (code, err) = run(&p, &format!("echo hi > {}", outside.display())).await;
    assert_ne!(code, 0);
    assert!(err.contains("Permission denied"), "{err}");
    assert!(!outside.exists());

    let (code, _) = run(&p, "cat /etc/hostname /proc/self/status > /dev/null").await;
    assert_eq!(code, 0, "reading stays allowed");

    let listener = TcpListener::bind("127.0.0.1:0").expect("listener");
    let port = listener.local_addr().expect("addr").port();
    let connect = format!("exec 3<>/dev/tcp/127.0.0.1/{port}");
    let (code, err) = run(&p, &format!("bash -c '{connect}'")).await;
    assert_ne!(code, 0, "a TCP connection is refused");
    assert!(
        err.contains("Operation not permitted") || err.contains("Permission denied"),
        "{err}"
    );

    let open = SandboxPolicy {
        network: true,
        ..p.clone()
    };
    let (code, err) = run(&open, &format!("bash -c '{connect}'")).await;
    assert_eq!(code, 0, "with the network allowed it connects: {err}");
}

#[tokio::test]
async fn with_a_proxy_port_tcp_reaches_only_that_port_and_udp_is_refused() {
    let ws = tempfile::tempdir().expect("workspace");
    let proxy = TcpListener::bind("127.0.0.1:0").expect("proxy");
    let other = TcpListener::bind("127.0.0.1:0").expect("other");
    let (proxy_port, other_port) = (
        proxy.local_addr().expect("addr").port(),
        other.local_addr().expect("addr").port(),
    );
    let p = SandboxPolicy {
        proxy_port: Some(proxy_port),
        ..policy(SandboxMode::WorkspaceWrite, ws.path())
    };
    let connect = |port: u16| format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}'");
    let (code, err) = run(&p, &connect(proxy_port)).await;
    assert_eq!(code, 0, "the proxy's port is reachable: {err}");
    let (code, _) = run(&p, &connect(other_port)).await;
    assert_ne!(code, 0, "any other port is not");
    let (code, err) = run(&p, "bash -c 'exec 3<>/dev/udp/127.0.0.1/53'").await;
    assert_ne!(code, 0, "UDP is refused: {err}");
}

#[tokio::test]
async fn read_only_refuses_every_write_and_off_refuses_nothing() {
    let ws = tempfile::tempdir().expect("workspace");
    let file = ws.path().join("f.txt");
    let (code, _) = run(
        &policy(SandboxMode::ReadOnly, ws.path()),
        &format!("touch {}", file.display()),
    )
    .await;
    assert_ne!(code, 0);
    assert!(!file.exists());
    let (code, err) = run(
        &policy(SandboxMode::Off, ws.path()),
        &format!("touch {}", file.display()),
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert!(file.exists());
}

#[test]
fn modes_parse_by_their_names() {
    for mode in [
        SandboxMode::WorkspaceWrite,
        SandboxMode::ReadOnly,
        SandboxMode::Off,
    ] {
        assert_eq!(SandboxMode::parse(mode.name()), Some(mode));
    }
    assert_eq!(
        SandboxMode::parse("danger-full-access"),
        Some(SandboxMode::Off)
    );
    assert_eq!(SandboxMode::parse("yes"), None);
}
