//! [`Answer`]: how one call ended: the part answering it, its status, its text and its diff.

use serde_json::Value;
use tunacode_protocol::{Content, Part, ToolStatus};

/// What a cancelled call answers.
pub const CANCELLED_ANSWER: &str = "Cancelled by the user.";

/// How one call ended: the part answering it and the event status.
pub(super) struct Answer {
    pub(super) part: Part,
    pub(super) status: ToolStatus,
    pub(super) text: String,
    pub(super) diff: Option<String>,
}

impl Answer {
    pub(super) fn retry(id: &str, name: &str, msg: String) -> Self {
        Answer {
            part: Part::retry_prompt(id, name, msg.clone()),
            status: ToolStatus::Failed,
            text: msg,
            diff: None,
        }
    }

    pub(super) fn failed(id: &str, name: &str, text: String) -> Self {
        Answer {
            part: Part::tool_return(id, name, text.clone()),
            status: ToolStatus::Failed,
            text,
            diff: None,
        }
    }

    pub(super) fn cancelled(id: &str, name: &str) -> Self {
        Answer {
            part: Part::tool_return(id, name, CANCELLED_ANSWER),
            status: ToolStatus::Cancelled,
            text: CANCELLED_ANSWER.to_string(),
            diff: None,
        }
    }
}

/// Appends `text` to a tool answer's text (a string, or a list's first string); `false` when the
/// part has none to append to.
pub(crate) fn append_to_answer(part: &mut Part, text: &str) -> bool {
    let content = match part {
        Part::ToolReturn(ret) => &mut ret.content,
        Part::RetryPrompt(retry) => &mut retry.content,
        _ => return false,
    };
    let target = match content {
        Content::Text(s) => s,
        Content::Other(value) => match &mut **value {
            Value::Array(items) => match items.first_mut() {
                Some(Value::String(s)) => s,
                _ => return false,
            },
            _ => return false,
        },
    };
    target.push_str("\n\n");
    target.push_str(text);
    true
}
