//! Sub-agents in the transcript: the parent's `task` cell follows its sub-agent live (its start,
//! each tool it calls, its text, how it ended) as a command's cell follows its output, and the
//! status line counts the running ones with their spend.

use tunacode_protocol::AgentEvent;
use tunacode_protocol::runtime::{SubagentChange, SubagentUpdate};

use crate::app::running_agents::RunningAgent;
use crate::app::state::App;
use crate::app::transcript::{CellKind, key_argument};

impl App {
    /// Applies what a sub-agent did.
    pub(super) fn on_subagent(&mut self, update: SubagentUpdate) {
        let id = update.label.parent_tool_call_id.clone();
        let running = &mut self.view.status.agents.by_call;
        let line = match update.change {
            SubagentChange::Started { model, .. } => {
                running.insert(
                    id.clone(),
                    RunningAgent {
                        agent_type: update.label.agent_type.clone(),
                        description: update.label.description.clone(),
                        cost: 0.0,
                        tokens: 0,
                    },
                );
                format!("{} started on {model}\n", update.label.agent_type)
            }
            SubagentChange::Event(AgentEvent::UsageUpdated { session_total, .. }) => {
                if let Some(agent) = running.get_mut(&id) {
                    agent.cost = session_total.cost;
                    agent.tokens = session_total.request_tokens + session_total.response_tokens;
                }
                return;
            }
            SubagentChange::Event(AgentEvent::ToolCallStarted {
                tool_name, args, ..
            }) => {
                let lead = if self.ends_line(&id) { "" } else { "\n" };
                format!("{lead}• {tool_name} {}\n", key_argument(&args))
            }
            SubagentChange::Event(AgentEvent::TextDelta { text }) => text,
            SubagentChange::Event(_) => return,
            SubagentChange::Finished(report) => {
                running.remove(&id);
                let lead = if self.ends_line(&id) { "" } else { "\n" };
                format!(
                    "{lead}{} {} after {:.1}s\n",
                    report.label.agent_type,
                    report.status.name(),
                    report.duration_ms as f64 / 1000.0
                )
            }
        };
        self.on_tool_output(&id, &line);
    }

    /// Whether the task cell's text so far ends a line (a new line of it needs no break first).
    fn ends_line(&mut self, id: &str) -> bool {
        match self.view.transcript.tool_mut(id).map(|c| &c.kind) {
            Some(CellKind::Tool(tool)) => tool.result.is_empty() || tool.result.ends_with('\n'),
            _ => true,
        }
    }
}
