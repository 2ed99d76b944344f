//! [`Command`]: what the connection hands a session's task, and the answer for a session that is not
//! open.

use agent_client_protocol::Error;
use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema::{
    ContentBlock, PromptResponse, SetSessionConfigOptionRequest, SetSessionConfigOptionResponse,
    SetSessionModeResponse,
};
use tunacode_core::Answer;

/// What the connection hands a session.
pub(crate) enum Command {
    /// `session/prompt`.
    Prompt(Vec<ContentBlock>, Responder<PromptResponse>),
    /// `session/cancel`.
    Cancel,
    /// `session/set_mode`.
    SetMode(String, Responder<SetSessionModeResponse>),
    /// `session/set_config_option`.
    SetConfig(
        SetSessionConfigOptionRequest,
        Responder<SetSessionConfigOptionResponse>,
    ),
    /// The connection closes the session (`session/close`, or the end of the connection).
    Close,
    /// The editor answered a question (from the task that asked it).
    Answered {
        /// The question's id.
        id: String,
        /// The answer.
        answer: Answer,
    },
}

impl Command {
    /// Answers the command's request with `error` (the session is not open).
    pub(crate) fn refuse(self, error: Error) -> Result<(), Error> {
        match self {
            Command::Prompt(_, r) => r.respond_with_error(error),
            Command::SetMode(_, r) => r.respond_with_error(error),
            Command::SetConfig(_, r) => r.respond_with_error(error),
            Command::Cancel | Command::Close | Command::Answered { .. } => Ok(()),
        }
    }
}

/// The error for a session id that is not open.
pub(crate) fn session_not_found(id: &str) -> agent_client_protocol::Error {
    agent_client_protocol::Error::new(-32002, format!("no open session `{id}`"))
}
