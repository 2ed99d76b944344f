//! Logs go to `<state dir>/tunacode/tunacode.log` (level from `TUNACODE_LOG`, default `warn`), never to
//! the terminal. The file is bounded: above 5 MiB it is rotated to `tunacode.log.1` at start-up.
//! Secrets are never logged (keys travel only in marked-sensitive headers, and headers are not logged).
//! The folder is 0700 and the file 0600 (a file left readable by an older version is tightened).

use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

const MAX_LOG_BYTES: u64 = 5 * 1024 * 1024;

/// Makes TunaCode's data and log folders private (an older version may have left them readable by
/// others; the walk runs on a blocking thread), then starts logging; a failure to tighten them is
/// logged.
pub async fn init_private(paths: &tunacode_store::Paths) {
    let (for_walk, log_dir) = (paths.clone(), paths.log_dir.clone());
    let private = tokio::task::spawn_blocking(move || {
        let private = for_walk.make_private();
        init(&log_dir);
        private
    })
    .await;
    match private {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!("could not make TunaCode's data folders private: {e}"),
        Err(e) => tracing::warn!("making TunaCode's data folders private failed: {e}"),
    }
}

/// Starts logging into `log_dir`; failures to open the log are ignored (logging is best effort).
fn init(log_dir: &Path) {
    if tunacode_store::private_dir(log_dir).is_err() {
        return;
    }
    let path = log_dir.join("tunacode.log");
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > MAX_LOG_BYTES) {
        let _ = std::fs::rename(&path, log_dir.join("tunacode.log.1"));
    }
    let Ok(file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&path)
    else {
        return;
    };
    let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
    let filter = tracing_subscriber::EnvFilter::try_from_env("TUNACODE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::sync::Mutex::new(file))
        .with_ansi(false)
        .try_init();
}
