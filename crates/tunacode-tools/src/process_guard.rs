//! Child processes that do not outlive the agent, and keep what they write private: settings applied
//! in the child between fork and exec, for callers (the undo store's `git`) that cannot use `unsafe`
//! themselves.

use std::io;
use std::process::Command;

use nix::sys::signal::Signal;
use nix::sys::stat::Mode;

/// Makes the child of `cmd` get SIGKILL when its parent goes (the agent killed, or exiting), with
/// Linux's `PR_SET_PDEATHSIG`. A child whose parent went before that was set fails to start.
///
/// The signal follows the *thread* that spawned the child, not the process: spawn from a thread that
/// waits for the child (a blocking call on it), or one that lives as long as the process.
pub fn die_with_parent(cmd: &mut Command) {
    let parent = nix::unistd::getpid();
    pre_exec::install(cmd, move || {
        nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).map_err(io::Error::from)?;
        if nix::unistd::getppid() != parent {
            // The parent died between the fork and the line above: nobody would kill us.
            return Err(io::Error::from(nix::errno::Errno::ESRCH));
        }
        Ok(())
    });
}

/// Makes the child of `cmd` create files without group and other permissions (umask 077), so what
/// it writes is the user's alone whatever the agent's umask.
pub fn private_umask(cmd: &mut Command) {
    pre_exec::install(cmd, || {
        nix::sys::stat::umask(Mode::from_bits_truncate(0o077));
        Ok(())
    });
}

/// The `unsafe` of registering code to run in the forked child (here and for every command's launch,
/// `sandbox/launch.rs`): each closure only makes system calls; it takes no lock and allocates
/// nothing on its success path.
#[allow(unsafe_code)]
pub(crate) mod pre_exec {
    use std::os::unix::process::CommandExt;

    /// Runs `step` in the child of `cmd` between fork and exec.
    pub(crate) fn install(
        cmd: &mut std::process::Command,
        step: impl FnMut() -> std::io::Result<()> + Send + Sync + 'static,
    ) {
        // SAFETY: see the module comment; the closures are async-signal-safe.
        unsafe {
            cmd.pre_exec(step);
        }
    }
}

#[cfg(test)]
#[path = "process_guard_tests.rs"]
mod tests;
