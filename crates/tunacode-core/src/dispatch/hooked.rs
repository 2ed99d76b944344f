//! The lifecycle hooks around one call: `PreToolUse` before it is approved (refuse, ask, change the
//! input, add context), `PostToolUse` after it ran (context or a problem appended to its result).

use serde_json::{Map, Value};
use tunacode_protocol::{ToolCallPart, ToolStatus};

use super::ToolDispatcher;
use super::answer::{Answer, append_to_answer};
use crate::hooks::BeforeTool;

/// What the `PreToolUse` hooks left of a call.
pub(super) struct Prepared {
    /// The arguments it runs with.
    pub args: Map<String, Value>,
    /// A hook wants the user asked.
    pub ask: bool,
    /// Context for the model, added to the result.
    pub context: Vec<String>,
}

impl ToolDispatcher {
    /// Runs the `PreToolUse` hooks; `Err` with the model's answer when one refused the call.
    pub(super) async fn pre_hooks(
        &self,
        call: &ToolCallPart,
        args: Map<String, Value>,
    ) -> Result<Prepared, String> {
        let Some(hooks) = &self.hooks else {
            return Ok(Prepared {
                args,
                ask: false,
                context: Vec::new(),
            });
        };
        match hooks.before(call, &args).await {
            BeforeTool::Refused(reason) => Err(reason),
            BeforeTool::Proceed { args, ask, context } => Ok(Prepared { args, ask, context }),
        }
    }

    /// Runs the `PostToolUse` hooks of a call that ran and adds what they (and the `PreToolUse`
    /// hooks' context) said to its answer.
    pub(super) async fn post_hooks(
        &self,
        call: &ToolCallPart,
        prepared: &Prepared,
        answer: &mut Answer,
    ) {
        let Some(hooks) = &self.hooks else {
            return;
        };
        let mut notes: Vec<String> = prepared
            .context
            .iter()
            .map(|c| format!("[PreToolUse hook] {c}"))
            .collect();
        if answer.status != ToolStatus::Cancelled {
            let failed = answer.status == ToolStatus::Failed;
            let after = hooks
                .after(call, &prepared.args, (&answer.text, failed))
                .await;
            notes.extend(after);
        }
        if notes.is_empty() {
            return;
        }
        let text = notes.join("\n");
        if append_to_answer(&mut answer.part, &text) {
            answer.text.push_str("\n\n");
            answer.text.push_str(&text);
        }
    }
}
