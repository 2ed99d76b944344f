//! File-system helpers: I/O error mapping and running file work on a blocking thread.

use crate::beneath::is_link_refusal;
use crate::tool_error::ToolError;

/// Maps an I/O error on `shown` to the policy: what the model can fix is a retry, the rest is transient.
pub(crate) fn io_error(shown: &str, err: std::io::Error) -> ToolError {
    use std::io::ErrorKind;
    if is_link_refusal(&err) {
        return ToolError::Retry(format!(
            "`{shown}` is, or passes through, a symbolic link that was not there when the path was \
             checked; file tools never follow it. Nothing was done"
        ));
    }
    match err.kind() {
        ErrorKind::NotFound => ToolError::Retry(format!("`{shown}` does not exist")),
        ErrorKind::PermissionDenied => ToolError::Retry(format!("permission denied: `{shown}`")),
        ErrorKind::NotADirectory => {
            ToolError::Retry(format!("a parent of `{shown}` is not a directory"))
        }
        ErrorKind::IsADirectory => ToolError::Retry(format!("`{shown}` is a directory")),
        ErrorKind::AlreadyExists => ToolError::Retry(format!("`{shown}` already exists")),
        ErrorKind::InvalidInput => ToolError::Retry(format!("`{shown}`: {err}")),
        _ => ToolError::Transient(format!("`{shown}`: {err}")),
    }
}

/// A failed background task (panicked or aborted) as a tool error.
pub(crate) fn join_error(err: tokio::task::JoinError) -> ToolError {
    ToolError::Fatal(format!("internal error in a background task: {err}"))
}

/// Runs file work (resolving links, opening, writing) on a blocking thread.
pub(crate) async fn blocking<T, F>(work: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .map_err(join_error)?
}
