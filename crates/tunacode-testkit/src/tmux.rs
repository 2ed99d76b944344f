//! [`Tmux`]: drives a terminal program under tmux for end-to-end tests: a private tmux server (its own
//! socket), a fixed-size window, `send-keys`, and `capture-pane` with waits that poll the screen until
//! a condition holds or a timeout passes.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::error::TestkitError;

/// A tmux server with one window running a command.
#[derive(Debug)]
pub struct Tmux {
    socket: String,
    /// Holds the file the command's exit code is written to (tmux does not always report it).
    status_dir: tempfile::TempDir,
}

impl Tmux {
    /// Starts `command` (a shell command line) in a `width`×`height` window with `env` set.
    /// The window stays open after the command exits, so its last screen can be read.
    pub fn start(
        command: &str,
        width: u16,
        height: u16,
        env: &[(&str, &str)],
        cwd: &Path,
    ) -> Result<Self, TestkitError> {
        let socket = format!("tunacode-test-{}-{}", std::process::id(), unique());
        let tmux = Tmux {
            socket,
            status_dir: tempfile::tempdir()?,
        };
        let status_file = tmux.status_dir.path().join("exit");
        let mut args: Vec<String> = vec![
            "new-session".into(),
            "-d".into(),
            "-s".into(),
            "t".into(),
            "-x".into(),
            width.to_string(),
            "-y".into(),
            height.to_string(),
            "-c".into(),
            cwd.display().to_string(),
        ];
        for (k, v) in env {
            args.push("-e".into());
            args.push(format!("{k}={v}"));
        }
        // The shell stays after the command: a pane that dies at once may lose the command's last
        // output (what it prints after leaving the alternate screen) before tmux reads it.
        args.push(format!(
            "{command}; echo $? > {}; exec sleep 600",
            status_file.display()
        ));
        tmux.run(&args)?;
        tmux.run(&["set-option", "-t", "t", "remain-on-exit", "on"])?;
        Ok(tmux)
    }

    fn run<S: AsRef<str>>(&self, args: &[S]) -> Result<Output, TestkitError> {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args.iter().map(|a| a.as_ref()))
            .env_remove("TMUX")
            .output()?;
        if !out.status.success() {
            return Err(TestkitError::Io(std::io::Error::other(format!(
                "tmux {:?} failed: {}",
                args.iter().map(|a| a.as_ref()).collect::<Vec<_>>(),
                String::from_utf8_lossy(&out.stderr)
            ))));
        }
        Ok(out)
    }

    /// Types literal text.
    pub fn type_text(&self, text: &str) -> Result<(), TestkitError> {
        self.run(&["send-keys", "-t", "t", "-l", text]).map(|_| ())
    }

    /// Presses keys by tmux name (`Enter`, `Escape`, `C-c`, `Down`, `BSpace`, …).
    pub fn keys(&self, keys: &[&str]) -> Result<(), TestkitError> {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.run(&args).map(|_| ())
    }

    /// Pastes text as a bracketed paste (what a terminal does when the user pastes).
    pub fn paste(&self, text: &str) -> Result<(), TestkitError> {
        self.run(&["set-buffer", "-b", "p", "--", text])?;
        self.run(&["paste-buffer", "-p", "-b", "p", "-t", "t"])
            .map(|_| ())
    }

    /// The screen as text.
    pub fn screen(&self) -> Result<String, TestkitError> {
        let out = self.run(&["capture-pane", "-t", "t", "-p"])?;
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Waits until the screen satisfies `pred`; returns it, or an error with the last screen.
    pub fn wait_for(
        &self,
        what: &str,
        timeout: Duration,
        pred: impl Fn(&str) -> bool,
    ) -> Result<String, TestkitError> {
        let deadline = Instant::now() + timeout;
        loop {
            let screen = self.screen()?;
            if pred(&screen) {
                return Ok(screen);
            }
            if Instant::now() >= deadline {
                return Err(TestkitError::Io(std::io::Error::other(format!(
                    "timed out waiting for {what}; screen:\n{screen}"
                ))));
            }
            // A screen has no change notification; re-read it shortly.
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    /// Waits until the screen contains `text`.
    pub fn wait_for_text(&self, text: &str, timeout: Duration) -> Result<String, TestkitError> {
        self.wait_for(&format!("{text:?}"), timeout, |s| s.contains(text))
    }

    /// The command's exit status once it has exited (128 + N when killed by signal N).
    pub fn exit_status(&self) -> Result<Option<i32>, TestkitError> {
        match std::fs::read_to_string(self.status_dir.path().join("exit")) {
            Ok(text) if text.ends_with('\n') => Ok(text.trim().parse().ok()),
            _ => Ok(None),
        }
    }

    /// Waits for the command to exit and returns its status.
    pub fn wait_exit(&self, timeout: Duration) -> Result<i32, TestkitError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(code) = self.exit_status()? {
                return Ok(code);
            }
            if Instant::now() >= deadline {
                return Err(TestkitError::Io(std::io::Error::other(format!(
                    "the program did not exit; screen:\n{}",
                    self.screen().unwrap_or_default()
                ))));
            }
            std::thread::sleep(Duration::from_millis(40));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .arg("kill-server")
            .env_remove("TMUX")
            .output();
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
