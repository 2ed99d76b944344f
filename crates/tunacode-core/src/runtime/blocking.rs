//! Running an operation's file or process work off the async threads, its failure as data.

use crate::runtime::events::OpFailure;

/// Runs `work` on a blocking thread; a panic or a cancelled task is an internal failure.
pub(super) async fn off_thread<T, F>(what: &str, work: F) -> Result<T, OpFailure>
where
    F: FnOnce() -> Result<T, OpFailure> + Send + 'static,
    T: Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(e) => {
            tracing::error!(error = %e, what, "an operation's blocking work failed");
            Err(OpFailure::Invalid(format!("internal error: {e}")))
        }
    }
}
