//! [`TuiError`]: what can stop the terminal UI.

/// A failure of the terminal UI itself (not of a request: those are shown in the transcript).
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The terminal could not be set up or drawn to.
    #[error("terminal error: {0}")]
    Terminal(#[from] std::io::Error),
    /// Settings could not be resolved.
    #[error("{0}")]
    Settings(String),
}
