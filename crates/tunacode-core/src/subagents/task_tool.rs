//! [`TaskTool`]: `task` (the name and arguments opencode and Claude Code use: `description`,
//! `prompt`, `subagent_type`) starts a sub-agent and answers with what it did and found. The call
//! itself changes nothing (a sub-agent's own calls are approved as the agent's are), so it is
//! read-only: several run in parallel, each waiting for one of `max_parallel` places.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use tunacode_tools::{Tool, ToolContext, ToolError, ToolKind, ToolOutput};

use super::child::{ChildRun, run_child};
use super::host::{Subagents, TASK_TOOL};
use crate::agent::Agent;

/// The `task` tool of one engine (it holds a copy of the engine it starts sub-agents from).
pub struct TaskTool {
    parent: Agent,
    host: Arc<Subagents>,
    description: String,
}

impl TaskTool {
    /// The tool starting sub-agents of `host`'s types from `parent`.
    pub fn new(parent: Agent, host: Arc<Subagents>) -> Self {
        let description = describe(&host);
        TaskTool {
            parent,
            host,
            description,
        }
    }
}

/// The tool's description: what it does, then each type by name.
fn describe(host: &Subagents) -> String {
    let mut text = String::from(
        "Delegate a self-contained task to a sub-agent; several in one response run in parallel. \
         `prompt` must say everything: it does not see this conversation. Returns its answer, \
         files read and changed, commands run. Types:",
    );
    for agent in &host.types {
        text.push_str(&format!("\n- {}: {}", agent.name, agent.description));
    }
    text
}

/// Text argument `key`, required.
fn required(args: &Map<String, Value>, key: &str) -> Result<String, ToolError> {
    match args.get(key).and_then(Value::as_str).map(str::trim) {
        Some(text) if !text.is_empty() => Ok(text.to_string()),
        _ => Err(ToolError::Retry(format!("`{key}` is required"))),
    }
}

#[async_trait]
impl Tool for TaskTool {
    fn name(&self) -> &str {
        TASK_TOOL
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        let names: Vec<&str> = self.host.types.iter().map(|t| t.name.as_str()).collect();
        json!({
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": "A 3-5 word label."},
                "prompt": {"type": "string"},
                "subagent_type": {"type": "string", "enum": names},
            },
            "required": ["description", "prompt", "subagent_type"],
        })
    }

    fn kind(&self) -> ToolKind {
        ToolKind::ReadOnly
    }

    /// A cancelled sub-agent stops, saves its session and reports what it did so far.
    fn stops_itself(&self) -> bool {
        true
    }

    /// A writer's changes are written to the workspace when it ends (once approved).
    fn may_change_files(&self, args: &Map<String, Value>) -> bool {
        let name = args.get("subagent_type").and_then(Value::as_str);
        name.and_then(|n| self.host.find(n))
            .is_some_and(|t| super::child::writes(&super::child::child_tools(&self.parent, t)))
    }

    async fn call(
        &self,
        args: Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let description = required(&args, "description")?;
        let prompt = required(&args, "prompt")?;
        let name = required(&args, "subagent_type")?;
        let Some(agent_type) = self.host.find(&name).cloned() else {
            let known: Vec<&str> = self.host.types.iter().map(|t| t.name.as_str()).collect();
            return Err(ToolError::Retry(format!(
                "no agent type `{name}`; the types are: {}",
                known.join(", ")
            )));
        };
        let run = ChildRun {
            parent: &self.parent,
            host: &self.host,
            agent_type,
            description,
            prompt,
        };
        let report = run_child(run, ctx).await?;
        Ok(ToolOutput::text(super::report::model_text(&report)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_description_names_every_type_and_stays_short() {
        let host = Subagents::new(crate::subagents::builtin_types(), Default::default(), 4);
        let text = describe(&host);
        assert!(text.contains("\n- explore: Read-only") && text.contains("\n- general: "));
        // Sent with every request: kept small (it is what the model chooses by).
        assert!(text.len() < 480, "{} bytes: {text}", text.len());
    }
}
