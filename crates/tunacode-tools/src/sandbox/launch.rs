//! How every command the agent runs is started, between fork and exec. The forked child:
//!
//! 1. starts a new session: no controlling terminal, so nothing it runs can push keys into the
//!    user's terminal (`TIOCSTI`) or read it; stdin is `/dev/null`;
//! 2. dies with the agent (`PR_SET_PDEATHSIG`);
//! 3. when sandboxed and the kernel allows it, enters new user, PID and mount namespaces; otherwise
//!    becomes a child subreaper;
//! 4. forks the command and stays behind as its reaper: it waits for the command, then ends whatever
//!    the command left running (in a PID namespace the kernel kills every process in it when its
//!    first process ends; as a subreaper it kills each orphan it inherits), and exits as the command
//!    did. So nothing a call started runs after the call returns, after an abort (the agent kills the
//!    session's process group) or after the agent is killed;
//! 5. the command itself, in the namespaces, mounts its own `/proc` and `/dev/pts`, binds the
//!    protected paths read-only and masks the secrets (`mounts.rs`), then switches on Landlock and
//!    seccomp and execs.
//!
//! Hand-written because no crate does this between fork and exec without allocating: every path and
//! buffer is built before the fork, and the child makes only system calls.

use std::ffi::CStr;

use landlock::RulesetCreated;
use seccompiler::BpfProgram;

use super::mounts::{Mount, MountPlan};

/// Namespaces for a sandboxed command.
pub(super) struct Namespaces {
    /// `/proc/self/uid_map`'s one line: the agent's uid mapped to itself.
    pub uid_map: Vec<u8>,
    /// The same for the group.
    pub gid_map: Vec<u8>,
    /// What the command's mount namespace looks like.
    pub mounts: MountPlan,
}

impl Namespaces {
    /// The agent's own uid and gid mapped to themselves, and `mounts`.
    pub fn new(mounts: MountPlan) -> Self {
        let (uid, gid) = (nix::unistd::getuid(), nix::unistd::getgid());
        Namespaces {
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            mounts,
        }
    }
}

/// Everything the child needs, built before the fork.
pub(crate) struct Launch {
    /// The agent's pid: the child checks it is still its parent once it asked to die with it.
    parent: libc::pid_t,
    pub(super) namespaces: Option<Namespaces>,
    pub(super) ruleset: Option<RulesetCreated>,
    pub(super) filter: Option<BpfProgram>,
}

impl Launch {
    /// A launch with no confinement but its own session, the agent's lifetime and a reaper.
    pub(crate) fn contained() -> Self {
        Launch {
            parent: std::process::id() as libc::pid_t,
            namespaces: None,
            ruleset: None,
            filter: None,
        }
    }

    /// Sets `cmd` up to start this way.
    pub(crate) fn install(self, cmd: &mut std::process::Command) {
        let mut launch = Some(self);
        crate::process_guard::pre_exec::install(cmd, move || match launch.take() {
            Some(launch) => imp::enter(launch),
            None => Err(std::io::Error::other("a launch runs once")),
        });
    }
}

#[allow(unsafe_code)]
mod imp {
    //! The launch's system calls: `pre_exec` (`process_guard::pre_exec`) runs them in the forked
    //! child of a threaded process, where only async-signal-safe calls are allowed. Everything below is a raw system
    //! call on memory prepared before the fork; nothing allocates or takes a lock on the success
    //! path (an error is built only when a call failed, and the child then exits).

    use super::*;

    fn check(result: libc::c_int) -> std::io::Result<()> {
        if result < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(())
        }
    }

    /// Runs in the forked child; returns only in the command's process, ready to exec.
    pub(super) fn enter(mut launch: Launch) -> std::io::Result<()> {
        // SAFETY: system calls with valid arguments; `reap` never returns.
        unsafe {
            check(libc::setsid())?;
            check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL))?;
            if libc::getppid() != launch.parent {
                return Err(std::io::Error::other(
                    "the agent ended while the command started",
                ));
            }
            let in_namespaces = launch.namespaces.is_some();
            match &launch.namespaces {
                Some(ns) => enter_namespaces(ns)?,
                None => check(libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1))?,
            }
            let pid = libc::fork();
            if pid < 0 {
                return Err(std::io::Error::last_os_error());
            }
            if pid > 0 {
                reap(pid, in_namespaces);
            }
            check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL))?;
            if let Some(ns) = &launch.namespaces {
                mount_all(&ns.mounts)?;
                drop_capabilities()?;
            }
            if launch.ruleset.is_some() {
                // A keyring of its own: the agent's session keyring is not the command's.
                libc::syscall(libc::SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, 0usize);
            }
        }
        if let Some(ruleset) = launch.ruleset.take() {
            ruleset
                .restrict_self()
                .map_err(|e| std::io::Error::other(e.to_string()))?;
        }
        if let Some(filter) = &launch.filter {
            seccompiler::apply_filter(filter).map_err(|e| std::io::Error::other(e.to_string()))?;
        }
        Ok(())
    }

    /// `KEYCTL_JOIN_SESSION_KEYRING` with no name: a new anonymous session keyring.
    const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;

    /// After the mounts, the command keeps no capability in its namespaces, even as uid 0 there (an
    /// agent run as root): the bounding and ambient sets are emptied and root gains nothing at exec
    /// (`SECBIT_NOROOT`, locked), so nothing can undo the read-only binds.
    unsafe fn drop_capabilities() -> std::io::Result<()> {
        // SAFETY: prctl with integer arguments.
        unsafe {
            check(libc::prctl(
                libc::PR_CAP_AMBIENT,
                libc::PR_CAP_AMBIENT_CLEAR_ALL,
                0,
                0,
                0,
            ))?;
            for cap in 0..64 {
                // Past the kernel's last capability this fails with EINVAL: nothing to drop.
                libc::prctl(libc::PR_CAPBSET_DROP, cap);
            }
            let bits = libc::SECBIT_NOROOT
                | libc::SECBIT_NOROOT_LOCKED
                | libc::SECBIT_NO_SETUID_FIXUP
                | libc::SECBIT_NO_SETUID_FIXUP_LOCKED
                | libc::SECBIT_NO_CAP_AMBIENT_RAISE
                | libc::SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
            check(libc::prctl(libc::PR_SET_SECUREBITS, bits))
        }
    }

    unsafe fn write_file(path: &CStr, bytes: &[u8]) -> std::io::Result<()> {
        // SAFETY: a NUL-terminated path and a valid buffer.
        unsafe {
            let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            check(fd)?;
            let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
            libc::close(fd);
            if written < 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }

    unsafe fn enter_namespaces(ns: &Namespaces) -> std::io::Result<()> {
        // SAFETY: system calls with valid arguments.
        unsafe {
            check(libc::unshare(
                libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWNS,
            ))?;
            // The agent is not dumpable, which makes these files root's: for the moment of writing
            // them the launcher (which runs no other code) is dumpable again.
            libc::prctl(libc::PR_SET_DUMPABLE, 1);
            let written = write_file(c"/proc/self/setgroups", b"deny")
                .and_then(|()| write_file(c"/proc/self/uid_map", &ns.uid_map))
                .and_then(|()| write_file(c"/proc/self/gid_map", &ns.gid_map));
            libc::prctl(libc::PR_SET_DUMPABLE, 0);
            written?;
        }
        Ok(())
    }

    unsafe fn mount(
        source: *const libc::c_char,
        target: *const libc::c_char,
        fstype: *const libc::c_char,
        flags: libc::c_ulong,
        data: *const libc::c_char,
    ) -> std::io::Result<()> {
        // SAFETY: NUL-terminated strings or null, as mount(2) takes them.
        unsafe { check(libc::mount(source, target, fstype, flags, data.cast())) }
    }

    unsafe fn mount_all(plan: &MountPlan) -> std::io::Result<()> {
        let null = std::ptr::null();
        // SAFETY: NUL-terminated strings prepared before the fork.
        unsafe {
            mount(
                null,
                c"/".as_ptr(),
                null,
                libc::MS_REC | libc::MS_PRIVATE,
                null,
            )?;
            let hardened = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
            mount(
                c"proc".as_ptr(),
                c"/proc".as_ptr(),
                c"proc".as_ptr(),
                hardened,
                null,
            )?;
            mount(
                c"devpts".as_ptr(),
                c"/dev/pts".as_ptr(),
                c"devpts".as_ptr(),
                libc::MS_NOSUID | libc::MS_NOEXEC,
                c"newinstance,ptmxmode=0666,mode=0620".as_ptr(),
            )?;
            for step in &plan.steps {
                match step {
                    Mount::Pin { path } => mount(
                        path.as_ptr(),
                        path.as_ptr(),
                        null,
                        libc::MS_BIND | libc::MS_REC,
                        null,
                    )?,
                    Mount::ReadOnly { path, locked } => {
                        read_only(path.as_ptr(), path.as_ptr(), *locked)?
                    }
                    Mount::MaskFile { path } => read_only(c"/dev/null".as_ptr(), path.as_ptr(), 0)?,
                    Mount::MaskDir { path } => mount(
                        c"tmpfs".as_ptr(),
                        path.as_ptr(),
                        c"tmpfs".as_ptr(),
                        libc::MS_RDONLY | hardened,
                        c"size=4k,nr_inodes=1,mode=0500".as_ptr(),
                    )?,
                }
            }
        }
        Ok(())
    }

    /// Binds `source` over `target` and makes the bind read-only.
    unsafe fn read_only(
        source: *const libc::c_char,
        target: *const libc::c_char,
        locked: libc::c_ulong,
    ) -> std::io::Result<()> {
        let null = std::ptr::null();
        // SAFETY: NUL-terminated strings prepared before the fork.
        unsafe {
            mount(source, target, null, libc::MS_BIND | libc::MS_REC, null)?;
            let flags = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | locked;
            mount(null, target, null, flags, null)
        }
    }

    /// The reaper: waits for the command, ends what it left running, exits as it did.
    unsafe fn reap(child: libc::pid_t, in_namespaces: bool) -> ! {
        // SAFETY: system calls only; this process never returns to the caller.
        unsafe {
            libc::signal(libc::SIGCHLD, libc::SIG_DFL);
            // Let go of the pipes (and std's exec-error pipe), so readers see the command's end.
            if libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) < 0 {
                for fd in 0..1024 {
                    libc::close(fd);
                }
            }
            let mut status = 0;
            while libc::waitpid(child, &mut status, 0) < 0
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
            {}
            if !in_namespaces {
                kill_orphans();
            }
            if libc::WIFSIGNALED(status) {
                let signal = libc::WTERMSIG(status);
                libc::signal(signal, libc::SIG_DFL);
                libc::kill(libc::getpid(), signal);
                libc::_exit(128 + signal);
            }
            libc::_exit(libc::WEXITSTATUS(status));
        }
    }

    /// As a subreaper: kills every child it has (orphans of the command land here) until none is
    /// left. A child's own children become ours when it dies, so the loop reaches every descendant.
    unsafe fn kill_orphans() {
        // The reaper has one thread, so its thread's children are all of its children.
        let path = c"/proc/thread-self/children";
        // SAFETY: system calls on a stack buffer.
        unsafe {
            loop {
                let fd = libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
                if fd < 0 {
                    return;
                }
                let mut buf = [0u8; 4096];
                let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
                libc::close(fd);
                let mut pid: libc::pid_t = 0;
                for &byte in &buf[..n.max(0) as usize] {
                    if byte.is_ascii_digit() {
                        pid = pid * 10 + libc::pid_t::from(byte - b'0');
                    } else if pid > 0 {
                        libc::kill(pid, libc::SIGKILL);
                        pid = 0;
                    }
                }
                if pid > 0 {
                    libc::kill(pid, libc::SIGKILL);
                }
                let mut status = 0;
                if libc::waitpid(-1, &mut status, 0) < 0
                    && std::io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD)
                {
                    return;
                }
            }
        }
    }
}
