//! The test kit's error type.

use std::time::Duration;

/// Errors from the fake provider and its helpers.
#[derive(Debug, thiserror::Error)]
pub enum TestkitError {
    /// Binding the listener, starting the server thread or writing a file failed.
    #[error("fake provider I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// A script (or another JSON document) could not be parsed.
    #[error("invalid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// [`crate::FakeProvider::wait_for_requests`] gave up.
    #[error("timed out after {timeout:?} waiting for {expected} request(s); received {received}")]
    Timeout {
        /// Requests waited for.
        expected: usize,
        /// Requests received when the wait ended.
        received: usize,
        /// How long the wait lasted.
        timeout: Duration,
    },
}
