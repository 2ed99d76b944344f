//! Failures as data: what went wrong, in words, with a kind scripts and front ends can act on.

use serde::{Deserialize, Serialize};

/// Why a request failed (after the engine's last event for it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestFailure {
    /// A short machine-readable kind: `aborted`, `timeout`, `store`, `internal`, or the provider
    /// error's kind (`auth`, `rate_limit`, `context_overflow`, …).
    pub kind: String,
    /// What went wrong, in words.
    pub message: String,
}

impl RequestFailure {
    /// Whether the user interrupted it.
    pub fn aborted(&self) -> bool {
        self.kind == "aborted"
    }

    /// Whether the request's global timeout fired.
    pub fn timed_out(&self) -> bool {
        self.kind == "timeout"
    }
}

impl std::fmt::Display for RequestFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Why an operation failed; nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum OpFailure {
    /// The model needs a key that is not set; `var` names the variable it is read from.
    #[error("{message}")]
    MissingKey {
        /// The provider.
        provider: String,
        /// The variable (or config key) the key is read from.
        var: String,
        /// The whole message, with what to do.
        message: String,
    },
    /// The model's settings could not be resolved (e.g. an unknown provider).
    #[error("{0}")]
    Settings(String),
    /// A session could not be read or listed.
    #[error("{0}")]
    Store(String),
    /// It cannot be done while a request runs.
    #[error("wait for the agent to finish (or interrupt it) before you {0}")]
    Busy(String),
    /// No open question has this id.
    #[error("no open question has the id `{0}`")]
    UnknownQuestion(String),
    /// The answer does not fit the question.
    #[error("the answer does not fit question `{0}`")]
    WrongAnswer(String),
    /// The operation does not apply now (the reason says why).
    #[error("{0}")]
    Invalid(String),
}

impl OpFailure {
    /// A short machine-readable kind: `missing_key`, `settings`, `store`, `busy`,
    /// `unknown_question`, `wrong_answer` or `invalid`.
    pub fn kind(&self) -> &'static str {
        match self {
            OpFailure::MissingKey { .. } => "missing_key",
            OpFailure::Settings(_) => "settings",
            OpFailure::Store(_) => "store",
            OpFailure::Busy(_) => "busy",
            OpFailure::UnknownQuestion(_) => "unknown_question",
            OpFailure::WrongAnswer(_) => "wrong_answer",
            OpFailure::Invalid(_) => "invalid",
        }
    }
}
