//! [`RequestError`]: how a request can end other than normally.

use std::time::Duration;

use tunacode_llm::LlmError;
use tunacode_store::StoreError;

/// A request that did not finish normally. In every case the session was cleaned and saved first.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// The user aborted; partial text was kept as `[INTERRUPTED]`.
    #[error("interrupted by the user")]
    Aborted,
    /// The global request timeout fired.
    #[error("the request timed out after {}s", .0.as_secs_f64())]
    TimedOut(Duration),
    /// The model call failed.
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// The session could not be saved.
    #[error("could not save the session: {0}")]
    Store(#[from] StoreError),
    /// The budget could not pay for the next call, which was not sent.
    #[error(transparent)]
    Budget(#[from] crate::budget::BudgetStop),
    /// A `UserPromptSubmit` hook blocked the prompt; nothing was sent.
    #[error("a UserPromptSubmit hook blocked the prompt: {0}")]
    PromptBlocked(String),
    /// An image could not be sent (not an image, too big, a secret file, or the model takes none);
    /// nothing was sent.
    #[error("{0}")]
    Images(String),
    /// Something inside TunaCode failed (a panic); the session keeps what it had before the request.
    #[error("internal error: {0}")]
    Internal(String),
}

impl RequestError {
    /// A short machine-readable kind.
    pub fn kind(&self) -> &'static str {
        match self {
            RequestError::Aborted => "aborted",
            RequestError::TimedOut(_) => "timeout",
            RequestError::Llm(e) => e.kind(),
            RequestError::Store(_) => "store",
            RequestError::Budget(crate::budget::BudgetStop::Exhausted { .. }) => "budget_exhausted",
            RequestError::Budget(crate::budget::BudgetStop::Ledger(_)) => "budget_ledger",
            RequestError::Budget(crate::budget::BudgetStop::SubagentCap { .. }) => {
                "budget_exhausted"
            }
            RequestError::PromptBlocked(_) => "prompt_blocked",
            RequestError::Images(_) => "images_unsupported",
            RequestError::Internal(_) => "internal",
        }
    }
}
