//! What an event's hooks said together: the first block wins (its reason told to the model, or for a
//! prompt to the user), `ask` forces a question, contexts add up, a changed input is kept, and
//! failures and `systemMessage`s are shown to the user.

use serde_json::{Map, Value};
use tunacode_store::HookEvent;
use tunacode_tools::InputRun;

use super::set::Hook;

/// The hooks of one event, together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdict {
    /// Why it is blocked, when a hook blocked it.
    pub block: Option<String>,
    /// A hook asked for the user's approval of the call.
    pub ask: bool,
    /// Context for the model.
    pub context: Vec<String>,
    /// The call's new input, in Claude Code's shape.
    pub updated_input: Option<Map<String, Value>>,
    /// What the user is told (hook failures, `systemMessage`).
    pub notices: Vec<String>,
}

impl Verdict {
    /// Takes in one hook's run.
    pub(super) fn absorb(&mut self, event: HookEvent, hook: &Hook, run: Result<InputRun, String>) {
        let run = match run {
            Ok(run) => run,
            Err(error) => return self.failed(hook, format!("could not run: {error}")),
        };
        match run.exit_code {
            Some(0) => self.answered(event, hook, &run.stdout),
            Some(2) => {
                let reason = run.stderr.trim();
                let reason = match reason.is_empty() {
                    true => format!("blocked by the {} hook `{}`", event.name(), hook.command),
                    false => reason.to_string(),
                };
                self.block.get_or_insert(reason);
            }
            Some(code) => {
                let first = run.stderr.lines().next().unwrap_or("").trim().to_string();
                self.failed(hook, format!("exited with {code}: {first}"));
            }
            None if run.timed_out => {
                self.failed(hook, format!("timed out after {} s", hook.timeout_secs))
            }
            None => self.failed(hook, "was killed by a signal".into()),
        }
    }

    /// A hook failed (not a block): said to the user; blocks only when it fails closed.
    fn failed(&mut self, hook: &Hook, what: String) {
        let message = format!("{} hook `{}` {what}", hook.event.name(), hook.command);
        if hook.fail_closed {
            self.block
                .get_or_insert(format!("{message} (the hook fails closed)"));
        }
        self.notices.push(message);
    }

    /// Exit 0: stdout is JSON with a decision, or plain text (context for a prompt or a session
    /// start). An object that does not parse is a failure of the hook (a cut answer could have
    /// been a deny).
    fn answered(&mut self, event: HookEvent, hook: &Hook, stdout: &str) {
        let text = stdout.trim();
        let json = match text.starts_with('{') {
            true => match serde_json::from_str::<Map<String, Value>>(text) {
                Ok(json) => Some(json),
                Err(e) => {
                    return self.failed(hook, format!("answered JSON that does not parse: {e}"));
                }
            },
            false => None,
        };
        let Some(json) = json else {
            if !text.is_empty()
                && matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart)
            {
                self.context.push(text.to_string());
            }
            return;
        };
        let str_of = |map: &Map<String, Value>, key: &str| {
            map.get(key).and_then(Value::as_str).map(str::to_string)
        };
        if let Some(message) = str_of(&json, "systemMessage") {
            self.notices.push(message);
        }
        if json.get("continue").and_then(Value::as_bool) == Some(false) {
            let reason = str_of(&json, "stopReason").unwrap_or_else(|| "a hook stopped it".into());
            self.block.get_or_insert(reason);
        }
        if str_of(&json, "decision").as_deref() == Some("block") {
            let reason = str_of(&json, "reason").unwrap_or_else(|| "a hook blocked it".into());
            self.block.get_or_insert(reason);
        }
        if let Some(specific) = json.get("hookSpecificOutput").and_then(Value::as_object) {
            self.specific(specific);
        }
    }

    fn specific(&mut self, out: &Map<String, Value>) {
        let str_of = |map: &Map<String, Value>, key: &str| {
            map.get(key).and_then(Value::as_str).map(str::to_string)
        };
        match str_of(out, "permissionDecision").as_deref() {
            Some("deny") => {
                let reason = str_of(out, "permissionDecisionReason")
                    .unwrap_or_else(|| "a hook denied it".into());
                self.block.get_or_insert(reason);
            }
            Some("ask") => self.ask = true,
            // `allow` cannot loosen TunaCode's own policy: the call is approved as usual.
            _ => {}
        }
        if let Some(updated) = out.get("updatedInput").and_then(Value::as_object) {
            self.updated_input = Some(updated.clone());
        }
        if let Some(context) = str_of(out, "additionalContext") {
            self.context.push(context);
        }
    }
}

#[cfg(test)]
#[path = "verdict_tests.rs"]
mod tests;
