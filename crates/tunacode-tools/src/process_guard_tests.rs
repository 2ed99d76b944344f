//! A guarded child does not outlive its parent: a helper process (this test binary, re-run as the
//! ignored helper test below) starts `cat` and is SIGKILLed; `cat` reads a pipe this test holds
//! open, so only the parent-death signal can end it. This process is made a subreaper so the
//! orphan is reparented here and its end can be waited for (with a timeout).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use super::*;

const HELPER: &str = "process_guard::tests::helper_parent_of_a_child";
const GUARD_VAR: &str = "TUNACODE_TEST_GUARD_CHILD";

/// Run only as the helper: starts `cat` on this process's stdin (guarded or not, as asked), prints
/// its pid and waits to be killed.
#[test]
#[ignore = "a helper process for the tests below"]
fn helper_parent_of_a_child() {
    let mut cmd = Command::new("cat");
    cmd.stdin(Stdio::inherit()).stdout(Stdio::null());
    if std::env::var_os(GUARD_VAR).is_some_and(|v| v == "1") {
        die_with_parent(&mut cmd);
    }
    let mut child = cmd.spawn().expect("cat");
    println!("child-pid {}", child.id());
    // This thread (the child's parent thread) waits on it until the helper is killed.
    let _ = child.wait();
}

/// Starts the helper, kills it once it reports its child, and returns the child's pid.
fn orphan_a_child(guarded: bool) -> Pid {
    nix::sys::prctl::set_child_subreaper(true).expect("subreaper");
    let mut helper = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--ignored",
            "--exact",
            HELPER,
            "--nocapture",
            "--test-threads=1",
        ])
        .env(GUARD_VAR, if guarded { "1" } else { "0" })
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("helper");
    let stdout = helper.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            // libtest prints the test's name first, on the same line.
            if let Some((_, pid)) = line.split_once("child-pid ") {
                let _ = tx.send(pid.trim().parse::<i32>().expect("a pid"));
                return;
            }
        }
    });
    let pid = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the helper started its child");
    // The pipe `cat` reads stays open here, so it cannot end by reading EOF.
    std::mem::forget(helper.stdin.take());
    helper.kill().expect("kill the helper");
    helper.wait().expect("the helper ended");
    Pid::from_raw(pid)
}

/// Waits (at most `limit`) for `pid`, now this process's child, to end.
fn wait_for_end(pid: Pid, limit: Duration) -> Option<WaitStatus> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(waitpid(pid, None));
    });
    rx.recv_timeout(limit).ok().and_then(Result::ok)
}

#[test]
fn a_guarded_child_is_killed_when_its_parent_is() {
    let child = orphan_a_child(true);
    let status = wait_for_end(child, Duration::from_secs(20));
    if status.is_none() {
        let _ = kill(child, Signal::SIGKILL);
    }
    assert_eq!(
        status,
        Some(WaitStatus::Signaled(child, Signal::SIGKILL, false))
    );
}

#[test]
fn an_unguarded_child_outlives_its_parent() {
    // The control: the same set-up without the guard leaves the child running.
    let child = orphan_a_child(false);
    let running = waitpid(child, Some(WaitPidFlag::WNOHANG)).expect("our child now");
    assert_eq!(running, WaitStatus::StillAlive);
    kill(child, Signal::SIGKILL).expect("kill it");
    assert_eq!(
        wait_for_end(child, Duration::from_secs(20)),
        Some(WaitStatus::Signaled(child, Signal::SIGKILL, false))
    );
}

#[test]
fn a_private_umask_makes_created_files_owner_only() {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("made");
    let mut cmd = Command::new("sh");
    cmd.args(["-c", ": > \"$1\"", "sh"]).arg(&file);
    private_umask(&mut cmd);
    assert!(cmd.status().expect("sh").success());
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&file).expect("made").permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
}
