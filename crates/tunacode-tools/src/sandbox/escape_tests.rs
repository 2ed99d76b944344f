//! The sandbox tried as an attacker would, on this kernel (Landlock ABI 7, user namespaces): other
//! processes and their environments, terminal injection, Unix sockets, undoing the mounts, protected
//! paths, secrets inside and outside a writable root, and processes that try to outlive the command.

use std::path::Path;
use std::process::Command as StdCommand;
use std::sync::Arc;

use super::*;
use crate::{ProtectedPaths, SecretPaths};

fn policy(root: &Path, secrets: SecretPaths) -> SandboxPolicy {
    SandboxPolicy {
        mode: SandboxMode::WorkspaceWrite,
        writable_roots: vec![root.to_path_buf()],
        secrets: Arc::new(secrets),
        protected: Arc::new(ProtectedPaths::new(vec![root.to_path_buf()], Vec::new())),
        ..SandboxPolicy::default()
    }
}

/// Runs `script` with `sh -c` in `cwd` under `policy`: exit code, stdout, stderr.
async fn run(policy: &SandboxPolicy, cwd: &Path, script: &str) -> (i32, String, String) {
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c").arg(script).current_dir(cwd);
    let prepared = policy.prepare(false).expect("the sandbox is set up");
    prepared.install(&mut cmd);
    let out = cmd.output().await.expect("sh runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn namespaces() {
    assert!(
        sandbox_support().namespaces,
        "this machine offers user namespaces: {:?}",
        sandbox_support()
    );
}

#[tokio::test]
async fn a_command_sees_and_signals_only_its_own_processes() {
    namespaces();
    let ws = tempfile::tempdir().expect("ws");
    let p = policy(ws.path(), SecretPaths::default());
    let me = std::process::id();
    let (code, out, err) = run(&p, ws.path(), "ls /proc | grep -c '^[0-9]'").await;
    assert_eq!(code, 0, "{err}");
    let count: u32 = out.trim().parse().expect("a count");
    assert!(count < 6, "only its own processes: {count}");
    let (code, _, _) = run(&p, ws.path(), &format!("cat /proc/{me}/environ")).await;
    assert_ne!(code, 0, "the agent's environment is not there");
    let (code, _, _) = run(&p, ws.path(), &format!("kill -0 {me}")).await;
    assert_ne!(code, 0, "the agent cannot be signalled");
}

#[tokio::test]
async fn terminal_injection_unix_sockets_and_mount_changes_are_refused() {
    let ws = tempfile::tempdir().expect("ws");
    let p = policy(ws.path(), SecretPaths::default());
    let python = |code: &str| format!("python3 -c '{code}'");
    let (code, _, err) = run(
        &p,
        ws.path(),
        &python("import fcntl, termios; fcntl.ioctl(1, termios.TIOCSTI, b\"y\")"),
    )
    .await;
    assert_ne!(code, 0);
    assert!(
        err.contains("Operation not permitted"),
        "seccomp, not ENOTTY: {err}"
    );
    for family in ["socket.AF_UNIX", "socket.AF_UNIX, socket.SOCK_DGRAM"] {
        let (code, _, err) = run(
            &p,
            ws.path(),
            &python(&format!("import socket; socket.socket({family})")),
        )
        .await;
        assert_ne!(code, 0, "{family}");
        assert!(err.contains("PermissionError"), "{err}");
    }
    let (code, _, err) = run(
        &p,
        ws.path(),
        &python("import socket; a, b = socket.socketpair(); a.send(b\"x\"); print(b.recv(1))"),
    )
    .await;
    assert_eq!(code, 0, "socketpair stays: {err}");
    if sandbox_support().namespaces {
        let (code, _, _) = run(&p, ws.path(), "umount -l /proc || umount /dev/pts").await;
        assert_ne!(code, 0, "the mounts stay");
    }
}

fn git(dir: &Path, args: &[&str]) {
    let status = StdCommand::new("git")
        .args(args)
        .current_dir(dir)
        .status()
        .expect("git");
    assert!(status.success(), "git {args:?}");
}

#[tokio::test]
async fn protected_paths_are_read_only_and_git_still_commits() {
    namespaces();
    let ws = tempfile::tempdir().expect("ws");
    let w = ws.path();
    git(w, &["init", "-q"]);
    std::fs::create_dir_all(w.join(".git/hooks")).expect("hooks");
    std::fs::write(w.join("AGENTS.md"), "be nice\n").expect("agents");
    std::fs::write(w.join("a.txt"), "a\n").expect("a");
    let p = policy(w, SecretPaths::default());
    for attack in [
        "echo evil > .git/hooks/pre-commit",
        "git config core.hooksPath /tmp",
        "printf '[alias]\\n x = !evil\\n' >> .git/config",
        "echo evil >> AGENTS.md",
        "rm -f AGENTS.md",
        "mv AGENTS.md gone.md",
    ] {
        let (code, _, err) = run(&p, w, attack).await;
        assert_ne!(code, 0, "{attack} succeeded");
        assert!(!err.is_empty(), "{attack}: an error is shown");
    }
    assert!(!w.join(".git/hooks/pre-commit").exists());
    assert_eq!(
        std::fs::read_to_string(w.join("AGENTS.md")).expect("kept"),
        "be nice\n"
    );
    let config = std::fs::read_to_string(w.join(".git/config")).expect("config");
    assert!(
        !config.contains("hooksPath") && !config.contains("evil"),
        "{config}"
    );
    let commit = "git add a.txt && git -c user.name=t -c user.email=t@example.com commit -qm one && git log --oneline | wc -l";
    let (code, out, err) = run(&p, w, commit).await;
    assert_eq!(
        (code, out.trim()),
        (0, "1"),
        "git works in the sandbox: {err}"
    );
}

#[tokio::test]
async fn secrets_are_unreadable_inside_and_outside_the_writable_root() {
    let ws = tempfile::tempdir().expect("ws");
    let elsewhere = tempfile::tempdir().expect("elsewhere");
    let inside = ws.path().join("home");
    for home in [&inside, &elsewhere.path().to_path_buf()] {
        std::fs::create_dir_all(home.join(".ssh")).expect("ssh");
        std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE-KEY").expect("key");
        std::fs::write(home.join(".netrc"), "password hunter2").expect("netrc");
        std::fs::write(home.join(".bashrc"), "alias ok=true").expect("rc");
    }
    let agent = [elsewhere.path().join("tunacode.json")];
    std::fs::write(&agent[0], r#"{"env": {"OPENAI_API_KEY": "sk-secret"}}"#).expect("config");
    let extra = [inside.join(".ssh"), inside.join(".netrc")];
    let secrets = SecretPaths::new(Some(elsewhere.path()), &agent, &extra);
    let p = policy(ws.path(), secrets);
    for home in [inside.clone(), elsewhere.path().to_path_buf()] {
        for secret in [".ssh/id_ed25519", ".netrc"] {
            let (_, out, _) = run(
                &p,
                ws.path(),
                &format!("cat {}", home.join(secret).display()),
            )
            .await;
            assert!(
                !out.contains("PRIVATE-KEY") && !out.contains("hunter2"),
                "{secret}: {out}"
            );
        }
        let (code, out, err) = run(
            &p,
            ws.path(),
            &format!("cat {}", home.join(".bashrc").display()),
        )
        .await;
        assert_eq!(
            (code, out.as_str()),
            (0, "alias ok=true"),
            "other files stay readable: {err}"
        );
    }
    let (_, out, _) = run(&p, ws.path(), &format!("cat {}", agent[0].display())).await;
    assert!(!out.contains("sk-secret"), "the agent's config: {out}");
}

/// Whether any process on the machine has `marker` in its command line.
fn running(marker: &str) -> bool {
    std::fs::read_dir("/proc")
        .expect("proc")
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .any(|cmdline| String::from_utf8_lossy(&cmdline).contains(marker))
}

#[tokio::test]
async fn nothing_a_sandboxed_command_started_outlives_it() {
    let ws = tempfile::tempdir().expect("ws");
    let p = policy(ws.path(), SecretPaths::default());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::SystemTime::UNIX_EPOCH)
        .expect("time")
        .subsec_nanos();
    let marker = format!("30.{}{nanos}", std::process::id());
    let script = format!(
        "sleep {marker} & setsid sleep {marker} & nohup sleep {marker} >/dev/null 2>&1 & \
         (sleep {marker} &) ; echo started"
    );
    let (code, out, err) = run(&p, ws.path(), &script).await;
    assert_eq!((code, out.trim()), (0, "started"), "{err}");
    assert!(
        !running(&marker),
        "a background process outlived the command"
    );
}

#[tokio::test]
async fn workspace_env_files_are_hidden_from_commands_only_when_asked() {
    namespaces();
    let ws = tempfile::tempdir().expect("ws");
    let w = ws.path();
    for dir in ["app", "node_modules/x", "a/b/c/d"] {
        std::fs::create_dir_all(w.join(dir)).expect("dir");
    }
    std::fs::write(w.join(".env"), "TOKEN=root-secret").expect("env");
    std::fs::write(w.join("app/.env.local"), "TOKEN=nested-secret").expect("env");
    std::fs::write(w.join("node_modules/x/.env"), "TOKEN=dep-secret").expect("env");
    std::fs::write(w.join("a/b/c/d/.env"), "TOKEN=deep-secret").expect("env");
    std::fs::write(w.join(".env.example"), "TOKEN=").expect("example");
    let elsewhere = tempfile::tempdir().expect("elsewhere");
    std::fs::write(elsewhere.path().join("app.env"), "TOKEN=linked-secret").expect("env");
    std::os::unix::fs::symlink(elsewhere.path().join("app.env"), w.join("app/.env")).expect("link");
    let read_all = "cat .env app/.env.local app/.env node_modules/x/.env a/b/c/d/.env \
                    .env.example 2>/dev/null; echo";
    let shown = policy(w, SecretPaths::default());
    let (_, out, _) = run(&shown, w, read_all).await;
    assert!(
        out.contains("root-secret") && out.contains("nested-secret"),
        "{out}"
    );
    let hidden = policy(w, SecretPaths::default().hiding_env_files(true));
    let (_, out, _) = run(&hidden, w, read_all).await;
    assert!(!out.contains("secret"), "{out}");
    assert!(out.contains("TOKEN="), "examples stay readable: {out}");
}

#[tokio::test]
async fn the_repository_cannot_be_moved_away_and_linked_protected_names_hold() {
    namespaces();
    let ws = tempfile::tempdir().expect("ws");
    let w = ws.path();
    git(w, &["init", "-q"]);
    std::fs::create_dir_all(w.join("docs")).expect("docs");
    std::fs::write(w.join("docs/guide.md"), "be nice\n").expect("guide");
    std::os::unix::fs::symlink("docs/guide.md", w.join("AGENTS.md")).expect("link");
    let p = policy(w, SecretPaths::default());
    for attack in [
        "mv .git .git2",
        "mv .git/../.git moved",
        "echo evil >> docs/guide.md",
    ] {
        let (code, _, _) = run(&p, w, attack).await;
        assert_ne!(code, 0, "{attack} succeeded");
    }
    assert!(
        w.join(".git/HEAD").exists(),
        "the repository is where it was"
    );
    assert_eq!(
        std::fs::read_to_string(w.join("docs/guide.md")).expect("guide"),
        "be nice\n"
    );
}

#[tokio::test]
async fn a_sandboxed_command_holds_no_capability_even_as_root() {
    namespaces();
    let ws = tempfile::tempdir().expect("ws");
    let p = policy(ws.path(), SecretPaths::default());
    let (code, out, err) = run(
        &p,
        ws.path(),
        "grep -E '^Cap(Eff|Prm|Bnd|Amb):' /proc/self/status",
    )
    .await;
    assert_eq!(code, 0, "{err}");
    for line in out.lines() {
        assert!(line.ends_with("0000000000000000"), "{out}");
    }
    assert_eq!(out.lines().count(), 4, "{out}");
}
