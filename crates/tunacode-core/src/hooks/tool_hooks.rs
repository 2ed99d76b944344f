//! `PreToolUse` and `PostToolUse` around each tool call: before, a hook may refuse the call (its
//! reason told to the model), make it ask the user even where it would not, add context, or change
//! its input; after, a hook may add context or tell the model what is wrong (exit 2, `decision:
//! "block"`), appended to the result. A hook's `allow` does not loosen TunaCode's own policy.

use serde_json::{Map, Value, json};
use tunacode_protocol::{AgentEvent, NoticeLevel, ToolCallPart};
use tunacode_store::HookEvent;

use super::matcher::claude_tool_name;
use super::run::{HookContext, run_event};
use super::tool_input::{from_claude, to_claude};
use super::verdict::Verdict;
use crate::events::EventSink;

/// What `PreToolUse` hooks decided of a call.
#[derive(Debug, Clone, PartialEq)]
pub enum BeforeTool {
    /// It runs with these arguments; `ask`: a hook wants the user asked; `context` goes with the
    /// result.
    Proceed {
        /// The arguments (changed by a hook, or as the model sent them).
        args: Map<String, Value>,
        /// A hook asked for the user's approval.
        ask: bool,
        /// Context for the model, added to the result.
        context: Vec<String>,
    },
    /// It does not run; the model is told why.
    Refused(String),
}

/// The tool hooks of a request.
#[derive(Debug, Clone)]
pub struct EngineToolHooks {
    /// Where and with what the hooks run.
    pub ctx: HookContext,
    /// Where their failures are said.
    pub events: EventSink,
}

impl EngineToolHooks {
    /// Runs the `PreToolUse` hooks of `call` (with `args`, its parsed arguments).
    pub async fn before(&self, call: &ToolCallPart, args: &Map<String, Value>) -> BeforeTool {
        let ours = call.tool_name.as_str();
        let fields = self.fields(call, args);
        let verdict = run_event(&self.ctx, HookEvent::PreToolUse, &names(ours), fields).await;
        self.say(&verdict);
        if let Some(reason) = verdict.block {
            return BeforeTool::Refused(format!("Blocked by a PreToolUse hook: {reason}"));
        }
        let args = match &verdict.updated_input {
            Some(updated) => from_claude(ours, updated),
            None => args.clone(),
        };
        BeforeTool::Proceed {
            args,
            ask: verdict.ask,
            context: verdict.context,
        }
    }

    /// Runs the `PostToolUse` hooks of a finished call; what to append to its result, if anything.
    pub async fn after(
        &self,
        call: &ToolCallPart,
        args: &Map<String, Value>,
        (result, failed): (&str, bool),
    ) -> Option<String> {
        let ours = call.tool_name.as_str();
        let mut fields = self.fields(call, args);
        let mut response = json!({"success": !failed, "output": result});
        if let Some(path) = fields["tool_input"].get("file_path").cloned() {
            response["filePath"] = path;
        }
        fields.insert("tool_response".into(), response);
        let verdict = run_event(&self.ctx, HookEvent::PostToolUse, &names(ours), fields).await;
        self.say(&verdict);
        let mut notes: Vec<String> = verdict
            .context
            .into_iter()
            .map(|c| format!("[PostToolUse hook] {c}"))
            .collect();
        if let Some(reason) = verdict.block {
            notes.push(format!("[PostToolUse hook: problem] {reason}"));
        }
        (!notes.is_empty()).then(|| notes.join("\n"))
    }

    /// Whether any tool hook is set (none: the dispatcher skips them).
    pub fn any(&self) -> bool {
        self.ctx.hooks.has(HookEvent::PreToolUse) || self.ctx.hooks.has(HookEvent::PostToolUse)
    }

    fn fields(&self, call: &ToolCallPart, args: &Map<String, Value>) -> Map<String, Value> {
        let ours = call.tool_name.as_str();
        let root = self.ctx.tool_ctx.workspace.root();
        let mut fields = Map::new();
        fields.insert("tool_name".into(), claude_tool_name(ours).into());
        fields.insert("tool_input".into(), to_claude(ours, args, root));
        fields.insert("tool_use_id".into(), call.tool_call_id.clone().into());
        fields
    }

    fn say(&self, verdict: &Verdict) {
        for message in &verdict.notices {
            self.events.emit(AgentEvent::Notice {
                level: NoticeLevel::Warning,
                message: message.clone(),
            });
        }
    }
}

/// The names a tool is matched by: Claude Code's and ours.
fn names(ours: &str) -> [&str; 2] {
    [claude_tool_name(ours), ours]
}
