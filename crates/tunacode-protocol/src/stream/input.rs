//! The stream-json input of `tunacode run --input-format stream-json`: one JSON object a line, each
//! turned into a runtime operation. Like the output, these types are the public contract, separate
//! from the runtime's own.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::runtime::{
    Answer, ApprovalAnswer, LimitDecision, LoopDecision, Op, PlanDecision, RewindMode,
};

/// One input line.
#[derive(Debug, Deserialize, PartialEq, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputLine {
    /// A message from the user.
    UserMessage {
        /// What the user says.
        text: String,
        /// Images sent with it: `{"path": "shot.png"}` or `{"media_type": "image/png", "data":
        /// <base64>}` (PNG, JPEG, GIF or WebP, up to 5 MiB each).
        #[serde(default)]
        images: Vec<crate::runtime::ImageInput>,
    },
    /// Claude Code's form of a user message, so tools written for it work.
    User {
        /// `{"role": "user", "content": "…" | [{"type": "text", "text": "…"}, …]}`.
        message: ClaudeMessage,
    },
    /// The answer to an `approval_requested` line.
    Approval {
        /// The `request_id` of the question.
        request_id: String,
        /// `allow`, `allow_session` or `deny`.
        decision: ApprovalChoice,
        /// With `deny`, or with `hunks`: what the model is told.
        #[serde(default)]
        note: Option<String>,
        /// With `allow`: write only these hunks of the diff in `preview` (0-based indices; the
        /// question says how many it has in `hunks`). The model is told which were rejected.
        #[serde(default)]
        hunks: Option<Vec<usize>>,
    },
    /// The answer to a `limit_choice_requested` line.
    LimitChoice {
        /// The `request_id` of the question.
        request_id: String,
        /// `continue`, `summarize`, `another_approach` or `stop`.
        choice: LimitChoice,
    },
    /// The answer to a `budget_requested` line.
    BudgetChoice {
        /// The `request_id` of the question.
        request_id: String,
        /// Raise the cap as proposed (`true`), or stop the request.
        raise: bool,
    },
    /// The answer to a `loop_requested` line.
    LoopChoice {
        /// The `request_id` of the question.
        request_id: String,
        /// `continue`, `stop` or `disable` (go on, and stop watching for loops in this session).
        choice: LoopChoice,
    },
    /// The answer to a `plan_review_requested` line.
    PlanReview {
        /// The `request_id` of the question.
        request_id: String,
        /// `approve` or `reject`.
        decision: PlanChoice,
        /// With `reject`: what to change.
        #[serde(default)]
        feedback: Option<String>,
    },
    /// Stops the running request.
    Interrupt,
    /// Compacts the history now.
    Compact {
        /// What the summary should keep in particular.
        #[serde(default)]
        focus: Option<String>,
    },
    /// Puts the files back as they were before the last prompt that changed them (`to`: further).
    Undo {
        /// How many prompts back (default 1).
        #[serde(default)]
        to: Option<usize>,
    },
    /// Goes back to just before prompt `to` (1-based) of the session: `all` (conversation and
    /// files, the default), `conversation` or `code`. A file the user changed since the agent left
    /// it is kept and named in the `rewound` line.
    Rewind {
        /// The prompt's number.
        to: usize,
        /// What goes back.
        #[serde(default)]
        mode: RewindMode,
    },
    /// Returns to where the session was before the rewinds since the last prompt.
    Redo,
    /// Forks the session into a new one whose history ends after prompt `at` (default: the last)
    /// and continues in it; the original is left as it is (a `forked` line, then `session_opened`).
    Fork {
        /// The prompt's number.
        #[serde(default)]
        at: Option<usize>,
    },
    /// Switches the model between requests.
    SetModel {
        /// `provider:model`.
        model: String,
    },
    /// Asks for the sandbox, its guards on this kernel and the rules (a `permissions` line).
    Permissions,
    /// What the next request holds, part by part, against the window: answered by a `context`
    /// line.
    Context,
    /// Sets the model's context window (saved to the config; a model the catalogue does not know
    /// has none, and is then never compacted automatically).
    SetContextWindow {
        /// The window in tokens.
        tokens: u64,
    },
}

/// Claude Code's user message.
#[derive(Debug, Deserialize, PartialEq, JsonSchema)]
pub struct ClaudeMessage {
    /// Must be `user`.
    #[serde(default)]
    pub role: Option<String>,
    /// A string, or content blocks whose `text` blocks are joined.
    pub content: Value,
}

/// An approval decision.
#[derive(Debug, Deserialize, PartialEq, Eq, Clone, Copy, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalChoice {
    /// This call only.
    Allow,
    /// This call and those like it for the session.
    AllowSession,
    /// Refuse.
    Deny,
}

/// The choice at the iteration limit.
#[derive(Debug, Deserialize, PartialEq, Eq, Clone, Copy, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LimitChoice {
    /// Five more iterations.
    Continue,
    /// A summary without tools, then stop.
    Summarize,
    /// Five more iterations, trying another approach.
    AnotherApproach,
    /// Stop now.
    Stop,
}

/// The choice when the model keeps repeating itself.
#[derive(Debug, Deserialize, PartialEq, Eq, Clone, Copy, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoopChoice {
    /// Go on; the count starts again.
    Continue,
    /// End the request.
    Stop,
    /// Go on, and stop watching for loops in this session.
    Disable,
}

/// A plan review decision.
#[derive(Debug, Deserialize, PartialEq, Eq, Clone, Copy, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlanChoice {
    /// Carry it out.
    Approve,
    /// Revise it.
    Reject,
}

impl InputLine {
    /// The operation this line asks for.
    pub fn into_op(self) -> Result<Op, String> {
        Ok(match self {
            InputLine::UserMessage { text, images } => Op::user_message_with_images(text, images),
            InputLine::User { message } => claude_op(&message)?,
            InputLine::Approval {
                request_id,
                decision,
                note,
                hunks,
            } => Op::Answer {
                id: request_id,
                answer: Answer::Approval(approval_answer(decision, note, hunks)?),
            },
            InputLine::LimitChoice { request_id, choice } => Op::Answer {
                id: request_id,
                answer: Answer::Limit(match choice {
                    LimitChoice::Continue => LimitDecision::Continue,
                    LimitChoice::Summarize => LimitDecision::Summarize,
                    LimitChoice::AnotherApproach => LimitDecision::TryAnotherApproach,
                    LimitChoice::Stop => LimitDecision::Stop,
                }),
            },
            InputLine::BudgetChoice { request_id, raise } => Op::Answer {
                id: request_id,
                answer: Answer::Budget { raise },
            },
            InputLine::LoopChoice { request_id, choice } => Op::Answer {
                id: request_id,
                answer: Answer::Loop(match choice {
                    LoopChoice::Continue => LoopDecision::Continue,
                    LoopChoice::Stop => LoopDecision::Stop,
                    LoopChoice::Disable => LoopDecision::Disable,
                }),
            },
            InputLine::PlanReview {
                request_id,
                decision,
                feedback,
            } => Op::Answer {
                id: request_id,
                answer: Answer::Plan(match decision {
                    PlanChoice::Approve => PlanDecision::Approve,
                    PlanChoice::Reject => PlanDecision::Reject {
                        feedback: feedback.unwrap_or_else(|| "the user rejected the plan".into()),
                    },
                }),
            },
            InputLine::Interrupt => Op::Interrupt,
            InputLine::SetModel { model } => Op::SetModel { model },
            InputLine::Compact { focus } => Op::Compact { focus },
            InputLine::Undo { to } => Op::Undo { to },
            InputLine::Rewind { to, mode } => Op::Rewind { to, mode },
            InputLine::Redo => Op::Redo,
            InputLine::Fork { at } => Op::Fork { at },
            InputLine::Permissions => Op::DescribePermissions,
            InputLine::Context => Op::DescribeContext,
            InputLine::SetContextWindow { tokens } => Op::SetContextWindow { tokens },
        })
    }
}

/// The answer an `approval` line gives; `hunks` go only with `allow`.
fn approval_answer(
    decision: ApprovalChoice,
    note: Option<String>,
    hunks: Option<Vec<usize>>,
) -> Result<ApprovalAnswer, String> {
    Ok(match (decision, hunks) {
        (ApprovalChoice::Allow, Some(accepted)) => {
            ApprovalAnswer::AllowHunks(crate::diff_hunks::HunkSelection {
                accepted,
                edited: Vec::new(),
                note,
            })
        }
        (_, Some(_)) => return Err("`hunks` goes only with the decision `allow`".into()),
        (ApprovalChoice::Allow, None) => ApprovalAnswer::AllowOnce,
        (ApprovalChoice::AllowSession, None) => ApprovalAnswer::AllowSession,
        (ApprovalChoice::Deny, None) => ApprovalAnswer::Deny { note },
    })
}

/// A Claude-style message as a user message: its text blocks, and its base64 images.
fn claude_op(message: &ClaudeMessage) -> Result<Op, String> {
    Ok(Op::user_message_with_images(
        claude_text(message)?,
        claude_images(message),
    ))
}

/// The base64 `image` blocks of a Claude-style message.
fn claude_images(message: &ClaudeMessage) -> Vec<crate::runtime::ImageInput> {
    let Value::Array(blocks) = &message.content else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|b| b["type"] == "image" && b["source"]["type"] == "base64")
        .filter_map(|b| {
            Some(crate::runtime::ImageInput::Inline {
                media_type: b["source"]["media_type"].as_str()?.to_string(),
                data: b["source"]["data"].as_str()?.to_string(),
            })
        })
        .collect()
}

fn claude_text(message: &ClaudeMessage) -> Result<String, String> {
    if message.role.as_deref().is_some_and(|r| r != "user") {
        return Err("a `user` line's message must have the role `user`".into());
    }
    match &message.content {
        Value::String(text) => Ok(text.clone()),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect();
            if texts.is_empty() {
                Err("the message has no text block".into())
            } else {
                Ok(texts.join("\n"))
            }
        }
        _ => Err("`message.content` must be a string or a list of content blocks".into()),
    }
}

/// Parses one line into an operation, or says what is wrong with it.
pub fn parse_line(line: &str) -> Result<Op, String> {
    serde_json::from_str::<InputLine>(line)
        .map_err(|e| e.to_string())?
        .into_op()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_become_operations() {
        assert_eq!(
            parse_line(r#"{"type":"user_message","text":"hi"}"#),
            Ok(Op::user_message("hi"))
        );
        assert_eq!(
            parse_line(
                r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}}"#
            ),
            Ok(Op::user_message("a\nb"))
        );
        assert_eq!(
            parse_line(r#"{"type":"user","message":{"role":"user","content":"plain"}}"#),
            Ok(Op::user_message("plain"))
        );
        assert_eq!(
            parse_line(r#"{"type":"approval","request_id":"q-1","decision":"deny","note":"no"}"#),
            Ok(Op::Answer {
                id: "q-1".into(),
                answer: Answer::Approval(ApprovalAnswer::Deny {
                    note: Some("no".into())
                })
            })
        );
        assert_eq!(
            parse_line(r#"{"type":"approval","request_id":"q-2","decision":"allow_session"}"#),
            Ok(Op::Answer {
                id: "q-2".into(),
                answer: Answer::Approval(ApprovalAnswer::AllowSession)
            })
        );
        assert_eq!(
            parse_line(r#"{"type":"limit_choice","request_id":"q","choice":"another_approach"}"#),
            Ok(Op::Answer {
                id: "q".into(),
                answer: Answer::Limit(LimitDecision::TryAnotherApproach)
            })
        );
        assert_eq!(parse_line(r#"{"type":"interrupt"}"#), Ok(Op::Interrupt));
        assert_eq!(
            parse_line(r#"{"type":"permissions"}"#),
            Ok(Op::DescribePermissions)
        );
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        assert!(parse_line("not json").is_err());
        let err =
            parse_line(r#"{"type":"approval","request_id":"q","decision":"maybe"}"#).unwrap_err();
        assert!(err.contains("maybe"), "{err}");
        let err = parse_line(r#"{"type":"user","message":{"role":"assistant","content":"x"}}"#)
            .unwrap_err();
        assert!(err.contains("role"), "{err}");
        assert!(parse_line(r#"{"type":"fly"}"#).is_err());
    }
}
