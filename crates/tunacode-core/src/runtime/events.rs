//! What the runtime tells its front ends (the protocol crate's events), and how the engine's own
//! errors become the data those events carry.

pub use tunacode_protocol::runtime::{
    ApprovalQuestion, CommandView, JournalRecovery, ListedSession, ModelView, OpFailure, Question,
    QuestionKind, RequestEnd, RequestFailure, RuntimeEvent, SessionNotice, SessionView, UndoneFile,
};
use tunacode_store::StoreError;

use crate::error::RequestError;
use crate::settings::SettingsError;

/// A settings error as an operation's failure (a missing key keeps its provider and variable, so a
/// front end can ask for it).
pub fn settings_failure(error: SettingsError) -> OpFailure {
    match &error {
        SettingsError::MissingKey { provider, var, .. } => OpFailure::MissingKey {
            provider: provider.clone(),
            var: var.clone(),
            message: error.to_string(),
        },
        _ => OpFailure::Settings(error.to_string()),
    }
}

/// A store error as an operation's failure.
pub fn store_failure(error: StoreError) -> OpFailure {
    OpFailure::Store(error.to_string())
}

/// A request's error as the data its end carries.
pub fn request_failure(error: &RequestError) -> RequestFailure {
    RequestFailure {
        kind: error.kind().to_string(),
        message: error.to_string(),
    }
}
