//! Running the undo store's `git` so that it never outlives what it was for: each call runs in a
//! process group of its own, gets SIGKILL if the agent dies (`die_with_parent`), and a [`Stop`]
//! kills the whole group when the checkpoint is no longer wanted (its request was cancelled).

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};

use nix::sys::signal::{Signal, killpg};
use nix::sys::wait::{Id, WaitPidFlag, waitid};
use nix::unistd::Pid;

/// Stops the git processes of a checkpoint: once [`Stop::stop`] is called, the running one is
/// killed with its group and none starts after it.
#[derive(Debug, Clone, Default)]
pub struct Stop(Arc<(Mutex<StopState>, Condvar)>);

#[derive(Debug, Default)]
struct StopState {
    stopped: bool,
    /// The process group of the git process running now.
    running: Option<Pid>,
}

impl Stop {
    /// Kills the running git process (and whatever it started) and refuses to start another.
    pub fn stop(&self) {
        let mut state = self.lock();
        state.stopped = true;
        if let Some(group) = state.running {
            let _ = killpg(group, Signal::SIGKILL);
        }
    }

    /// Whether [`Stop::stop`] was called.
    pub fn is_stopped(&self) -> bool {
        self.lock().stopped
    }

    /// Waits until a git process runs (or `limit` passes); its process group. For tests.
    pub fn wait_running(&self, limit: std::time::Duration) -> Option<Pid> {
        let (lock, ready) = &*self.0;
        let state = lock.lock().unwrap_or_else(|p| p.into_inner());
        let (state, _) = ready
            .wait_timeout_while(state, limit, |s| s.running.is_none())
            .unwrap_or_else(|p| p.into_inner());
        state.running
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, StopState> {
        self.0.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records the group of a process just started; kills it at once when stopped already.
    fn started(&self, group: Pid) {
        let mut state = self.lock();
        if state.stopped {
            let _ = killpg(group, Signal::SIGKILL);
        } else {
            state.running = Some(group);
            self.0.1.notify_all();
        }
    }

    fn ended(&self) {
        self.lock().running = None;
    }
}

/// What a git process printed and how it ended.
pub(crate) struct Output {
    pub(crate) status: ExitStatus,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: Vec<u8>,
}

/// Runs `cmd` to its end in a process group of its own, killable through `stop`, dying with the
/// agent. Blocking: the calling thread waits for the child, so the parent-death signal (which
/// follows the spawning thread) only fires when the agent goes.
pub(crate) fn run(
    mut cmd: Command,
    input: Option<Vec<u8>>,
    stop: &Stop,
) -> std::io::Result<Output> {
    cmd.process_group(0)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    tunacode_tools::process_guard::die_with_parent(&mut cmd);
    let mut child = cmd.spawn()?;
    let group = Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    stop.started(group);
    let writer = match (input, child.stdin.take()) {
        (Some(bytes), Some(mut pipe)) => Some(std::thread::spawn(move || {
            use std::io::Write;
            // A git that stops reading early ends the write with a broken pipe: its status says why.
            let _ = pipe.write_all(&bytes);
        })),
        _ => None,
    };
    let mut stderr_pipe = child.stderr.take();
    let stderr = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(pipe) = stderr_pipe.as_mut() {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    });
    let mut stdout = Vec::new();
    if let Some(mut pipe) = child.stdout.take() {
        let _ = pipe.read_to_end(&mut stdout);
    }
    let stderr = stderr.join().unwrap_or_default();
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    // Wait without reaping first, so the group's id cannot be reused while `stop` may signal it.
    let _ = waitid(Id::Pid(group), WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT);
    stop.ended();
    let status = child.wait()?;
    Ok(Output {
        status,
        stdout,
        stderr,
    })
}

#[cfg(test)]
#[path = "checkpoint_git_tests.rs"]
mod tests;
