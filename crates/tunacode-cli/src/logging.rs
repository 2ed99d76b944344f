//! Logs go to `<state dir>/tunacode/tunacode.log` (level from `TUNACODE_LOG`, default `warn`), never to
//! the terminal. The file is bounded: above 5 MiB it is rotated to `tunacode.log.1` at start-up.
//! Secrets are never logged (keys travel only in marked-sensitive headers, and headers are not logged).

use std::path::Path;

const MAX_LOG_BYTES: u64 = 5 * 1024 * 1024;

/// Starts logging into `log_dir`; failures to open the log are ignored (logging is best effort).
pub fn init(log_dir: &Path) {
    if std::fs::create_dir_all(log_dir).is_err() {
        return;
    }
    let path = log_dir.join("tunacode.log");
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > MAX_LOG_BYTES) {
        let _ = std::fs::rename(&path, log_dir.join("tunacode.log.1"));
    }
    let Ok(file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    else {
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("TUNACODE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::sync::Mutex::new(file))
        .with_ansi(false)
        .try_init();
}
