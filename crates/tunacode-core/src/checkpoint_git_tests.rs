//! The undo store's git processes end with what they were for: a stopped checkpoint kills its git
//! process group at once, and the agent's death kills its git process (a helper process, this test
//! binary re-run as the ignored helper test below, takes a checkpoint and is SIGKILLed). A clean
//! filter that never ends holds git inside `git add` for as long as a test needs.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::Pid;

use crate::checkpoints::{CheckpointError, Checkpoints, Stop};

const LIMIT: Duration = Duration::from_secs(30);
const HELPER: &str = "checkpoint_git::tests::helper_takes_a_checkpoint_until_killed";
const HELPER_DIR: &str = "TUNACODE_TEST_CHECKPOINT_DIR";

/// A store whose next checkpoint blocks in `git add`: its git (a script in front of the real one)
/// starts a child for `add` that writes its pid to the fifo `ready` and then never ends, as a clean
/// filter would (the store itself turns every filter off). The store and the fifo.
fn blocking_store(root: &Path) -> (Checkpoints, std::path::PathBuf) {
    let (data, ws) = (root.join("data"), root.join("ws"));
    std::fs::create_dir_all(&ws).expect("ws");
    let (ready, armed, script) = (root.join("ready"), root.join("armed"), root.join("git"));
    let body = format!(
        "#!/bin/sh\n\
         for a in \"$@\"; do [ \"$a\" = add ] && add=1; done\n\
         if [ -n \"$add\" ] && [ -e '{armed}' ]; then\n\
         sh -c \"echo \\$\\$ > '{ready}'; exec sleep 100000\"\n\
         fi\n\
         exec git \"$@\"\n",
        armed = armed.display(),
        ready = ready.display(),
    );
    std::fs::write(&script, body).expect("script");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .expect("chmod");
    let store = Checkpoints::new(&data, &ws).with_git_program(&script);
    store
        .take("s", "first", &[], &Stop::default())
        .expect("a store");
    nix::unistd::mkfifo(&ready, nix::sys::stat::Mode::from_bits_truncate(0o600)).expect("fifo");
    std::fs::write(&armed, "").expect("armed");
    std::fs::write(ws.join("x.txt"), "held\n").expect("file");
    (store, ready)
}

/// The pid the blocking filter writes once it runs (read from the fifo on a thread).
fn filter_pid(ready: &Path) -> Pid {
    let ready = ready.to_path_buf();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Ok(mut fifo) = std::fs::File::open(&ready) {
            let _ = fifo.read_to_string(&mut text);
        }
        let _ = tx.send(text.trim().parse::<i32>().ok());
    });
    let pid = rx
        .recv_timeout(LIMIT)
        .expect("the filter ran")
        .expect("a pid");
    Pid::from_raw(pid)
}

/// Waits (at most [`LIMIT`]) for `pid`, a child of this process, to end. An orphan becomes our child
/// only once its parent is gone: until then `waitpid` says it is none of ours, and is asked again.
fn end_of(pid: Pid) -> Option<WaitStatus> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let deadline = std::time::Instant::now() + LIMIT;
        let status = loop {
            match waitpid(pid, None) {
                Err(nix::errno::Errno::ECHILD) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                other => break other,
            }
        };
        let _ = tx.send(status);
    });
    rx.recv_timeout(LIMIT).ok().and_then(Result::ok)
}

/// Whether `pid` ends killed: its status when it comes to this process (a subreaper), or its being
/// gone when another reaped it first (its parent may outlive it by an instant and reap it). A
/// process still running when the deadline passes is not.
fn ends_killed(pid: Pid) -> bool {
    let deadline = std::time::Instant::now() + LIMIT;
    loop {
        match waitpid(pid, Some(nix::sys::wait::WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::Signaled(_, Signal::SIGKILL, _)) => return true,
            Ok(WaitStatus::StillAlive) | Err(nix::errno::Errno::ECHILD) => {}
            Ok(_) | Err(_) => return false,
        }
        if kill(pid, None) == Err(nix::errno::Errno::ESRCH) {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

#[test]
fn a_stopped_checkpoint_kills_its_git_process_group() {
    // Orphans of the killed group come here, so their end can be waited for.
    nix::sys::prctl::set_child_subreaper(true).expect("subreaper");
    let root = tempfile::tempdir().expect("root");
    let (store, ready) = blocking_store(root.path());
    let stop = Stop::default();
    let (tx, rx) = mpsc::channel();
    {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let _ = tx.send(store.take("s", "held", &[], &stop));
        });
    }
    let filter = filter_pid(&ready);
    let git = stop.wait_running(LIMIT).expect("git runs");
    stop.stop();
    let taken = rx.recv_timeout(LIMIT).expect("the checkpoint returned");
    assert!(matches!(taken, Err(CheckpointError::Stopped)), "{taken:?}");
    // The filter git started was in git's group: killed too.
    assert!(ends_killed(filter), "the filter outlived the stop");
    assert_eq!(
        kill(git, None),
        Err(nix::errno::Errno::ESRCH),
        "git itself was reaped"
    );
    // A stopped checkpoint starts nothing more.
    let (again, _) = blocking_store(&root.path().join("again"));
    assert!(matches!(
        again.take("s", "x", &[], &stop),
        Err(CheckpointError::Stopped)
    ));
}

/// Run only as the helper: takes a checkpoint that blocks in its filter, prints git's pid, and waits
/// to be killed.
#[test]
#[ignore = "a helper process for the test below"]
fn helper_takes_a_checkpoint_until_killed() {
    let Some(root) = std::env::var_os(HELPER_DIR) else {
        return;
    };
    let (store, _ready) = blocking_store(Path::new(&root));
    let stop = Stop::default();
    let watcher = stop.clone();
    std::thread::spawn(move || {
        if let Some(git) = watcher.wait_running(LIMIT) {
            println!("git-pid {git}");
        }
    });
    let _ = store.take("s", "held", &[], &stop);
}

#[test]
fn a_checkpoint_s_git_dies_with_the_agent() {
    nix::sys::prctl::set_child_subreaper(true).expect("subreaper");
    let root = tempfile::tempdir().expect("root");
    let mut helper = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--ignored",
            "--exact",
            HELPER,
            "--nocapture",
            "--test-threads=1",
        ])
        .env(HELPER_DIR, root.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("helper");
    let stdout = helper.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            // libtest prints the test's name first, on the same line.
            if let Some((_, pid)) = line.split_once("git-pid ") {
                let _ = tx.send(pid.trim().parse::<i32>().ok());
                return;
            }
        }
    });
    let git = Pid::from_raw(rx.recv_timeout(LIMIT).expect("git started").expect("a pid"));
    // The filter runs, so git is inside `git add`, writing the store.
    let filter = filter_pid(&root.path().join("ready"));
    helper.kill().expect("kill the agent");
    helper.wait().expect("the agent ended");
    let status = end_of(git);
    let _ = kill(filter, Signal::SIGKILL);
    if status.is_none() {
        let _ = kill(git, Signal::SIGKILL);
    }
    assert_eq!(
        status,
        Some(WaitStatus::Signaled(git, Signal::SIGKILL, false))
    );
}
