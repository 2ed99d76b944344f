//! What a session has in flight with its runtime ([`Current`]) and what waits behind it ([`Waiting`]).

use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema::{PromptResponse, SetSessionConfigOptionResponse};
use tunacode_core::Op;

use crate::prompt::ReplyKind;

/// What the runtime is doing for the editor.
pub(crate) enum Current {
    /// A prompt running as a request, until `RequestEnded`.
    Request {
        responder: Responder<PromptResponse>,
        /// The editor cancelled it.
        cancelled: bool,
    },
    /// A built-in command, answered by one event.
    Reply {
        kind: ReplyKind,
        responder: Responder<PromptResponse>,
        /// The editor cancelled it.
        cancelled: bool,
    },
    /// A config change, answered by `ModelChanged` (a model switch), `Budget` (the session budget)
    /// or `OpFailed`.
    Config {
        responder: Responder<SetSessionConfigOptionResponse>,
        /// It changes the budget (else the model).
        budget: bool,
    },
}

/// What waits for the runtime.
pub(crate) enum Waiting {
    /// A prompt: its operation, and the event answering it when it is a built-in command.
    Prompt {
        op: Op,
        reply: Option<ReplyKind>,
        responder: Responder<PromptResponse>,
    },
    /// A config change: the operation that makes it.
    Config {
        op: Op,
        responder: Responder<SetSessionConfigOptionResponse>,
    },
    /// A prompt answered without the runtime (a built-in command's bad argument), in its turn.
    Say {
        text: String,
        responder: Responder<PromptResponse>,
    },
}
