//! [`ToolError`]: how a tool call fails, and so what happens next.

/// Why a tool call failed. Encodes the policy: what the model can fix goes back to it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ToolError {
    /// The model can fix this (bad arguments, missing file, no match): sent back as a retry prompt.
    #[error("{0}")]
    Retry(String),
    /// A passing failure (I/O error, resource busy): retried with backoff, then recorded as failed.
    #[error("{0}")]
    Transient(String),
    /// Will not succeed on retry: recorded as failed and reported to the model.
    #[error("{0}")]
    Fatal(String),
    /// The user aborted the call.
    #[error("cancelled by user")]
    Cancelled,
}
