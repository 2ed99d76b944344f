//! [`TestEnv`]: a temporary home for running the real `tunacode` binary in tests: a workspace directory
//! and private config, data and state directories, with provider variables from the outer environment
//! removed so a developer's own keys and config never leak into a test.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

/// Variables removed from the child's environment.
const SCRUBBED: &[&str] = &[
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENROUTER_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "TUNACODE_MODEL",
    "TUNACODE_BASE_URL",
    "TUNACODE_API_KEY",
    "TUNACODE_CONFIG",
    "TUNACODE_LOG",
    "TUNACODE_MAX_PARALLEL",
    "TUNACODE_STREAM_IDLE_TIMEOUT",
    "TUNACODE_WIRE_API",
    "TUNACODE_SANDBOX",
];

/// A temporary workspace and home for one test.
#[derive(Debug)]
pub struct TestEnv {
    dir: tempfile::TempDir,
}

impl TestEnv {
    /// Creates the directories.
    pub fn new() -> std::io::Result<Self> {
        let dir = tempfile::tempdir()?;
        for sub in ["ws", "config", "data", "state"] {
            std::fs::create_dir_all(dir.path().join(sub))?;
        }
        Ok(TestEnv { dir })
    }

    /// The workspace the agent works in.
    pub fn workspace(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    /// The config file path (`$XDG_CONFIG_HOME/tunacode.json`).
    pub fn config_file(&self) -> PathBuf {
        self.dir.path().join("config").join("tunacode.json")
    }

    /// The root of session files.
    pub fn sessions_dir(&self) -> PathBuf {
        self.dir
            .path()
            .join("data")
            .join("tunacode")
            .join("sessions")
    }

    /// A command for `binary` with this environment (cwd = the workspace, stdin null).
    pub fn command(&self, binary: &Path) -> Command {
        let mut cmd = Command::new(binary);
        for var in SCRUBBED.iter().copied() {
            cmd.env_remove(var);
        }
        cmd.env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .env("XDG_STATE_HOME", self.dir.path().join("state"))
            .env("NO_COLOR", "1")
            .current_dir(self.workspace())
            .stdin(Stdio::null());
        cmd
    }

    /// Every session file written, sorted by path.
    pub fn session_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        if let Ok(projects) = std::fs::read_dir(self.sessions_dir()) {
            for project in projects.flatten() {
                if let Ok(entries) = std::fs::read_dir(project.path()) {
                    files.extend(
                        entries
                            .flatten()
                            .map(|e| e.path())
                            .filter(|p| p.extension().is_some_and(|x| x == "json"))
                            // A session's rewind tree and its summary live beside it.
                            .filter(|p| {
                                let name = p.to_string_lossy();
                                !name.ends_with(".tree.json") && !name.ends_with(".summary.json")
                            }),
                    );
                }
            }
        }
        files.sort();
        files
    }

    /// The only session file, parsed. Panics (a test failure) when there is not exactly one.
    pub fn only_session(&self) -> Value {
        let files = self.session_files();
        assert_eq!(files.len(), 1, "expected one session file, found {files:?}");
        let text = std::fs::read_to_string(&files[0]).unwrap_or_default();
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }
}

/// Reads a child's stdout line by line on a thread, so a test can wait for a line with a timeout.
#[derive(Debug)]
pub struct LineReader {
    rx: mpsc::Receiver<String>,
    /// Every line read so far.
    pub seen: Vec<String>,
}

impl LineReader {
    /// Starts reading `stdout`.
    pub fn new(stdout: ChildStdout) -> Self {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        LineReader {
            rx,
            seen: Vec::new(),
        }
    }

    /// Waits for a line for which `pred` holds, up to `timeout`. Returns it, or `None` on timeout or
    /// end of output.
    pub fn wait_for(&mut self, timeout: Duration, pred: impl Fn(&str) -> bool) -> Option<String> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if pred(&line) {
                        return Some(line);
                    }
                }
                Err(_) => return None,
            }
        }
    }

    /// Reads the rest of the output (until the child closes stdout), up to `timeout`.
    pub fn read_to_end(&mut self, timeout: Duration) -> &[String] {
        let _ = self.wait_for(timeout, |_| false);
        &self.seen
    }
}

/// Waits for a child to exit, up to `timeout`; kills it and returns `None` when it does not.
pub fn wait_with_timeout(child: &mut Child, timeout: Duration) -> Option<std::process::ExitStatus> {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if std::time::Instant::now() < deadline => {
                // Polling a child's exit has no event to wait on in std; a short pause between checks.
                std::thread::sleep(Duration::from_millis(10));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}
