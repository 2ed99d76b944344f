//! A sub-agent in the editor: its parent's `task` call is a tool call whose content follows the
//! sub-agent live (its start, each tool it calls, its text, its end), as a command's output does.

use agent_client_protocol::Error;
use tunacode_protocol::AgentEvent;
use tunacode_protocol::runtime::{SubagentChange, SubagentUpdate};

use crate::session::Session;
use crate::tool_calls;

impl Session {
    /// Adds what a sub-agent did to its parent call's content.
    pub(crate) fn on_subagent(&mut self, update: SubagentUpdate) -> Result<(), Error> {
        let Some(line) = progress_line(&update.change) else {
            return Ok(());
        };
        self.on_tool_output(update.label.parent_tool_call_id, &line)
    }
}

/// The text a change adds (`None`: nothing to show).
fn progress_line(change: &SubagentChange) -> Option<String> {
    Some(match change {
        SubagentChange::Started {
            session_id, model, ..
        } => format!(
            "Started on {model} (session {}).\n",
            session_id.get(..8).unwrap_or(session_id)
        ),
        SubagentChange::Event(AgentEvent::ToolCallStarted {
            tool_name, args, ..
        }) => format!("\n• {}\n", tool_calls::title(tool_name, args)),
        SubagentChange::Event(AgentEvent::TextDelta { text }) => text.clone(),
        SubagentChange::Event(_) => return None,
        SubagentChange::Finished(report) => format!(
            "\nEnded: {} after {:.1} s.\n",
            report.status.name(),
            report.duration_ms as f64 / 1000.0
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_sub_agent_s_tool_calls_and_text_become_its_parent_call_s_lines() {
        let call = SubagentChange::Event(AgentEvent::ToolCallStarted {
            tool_call_id: "c".into(),
            tool_name: "read_file".into(),
            args: json!({"file_path": "src/a.rs"}),
            kind: tunacode_protocol::ToolKind::ReadOnly,
        });
        let line = progress_line(&call).unwrap();
        assert!(
            line.starts_with("\n• ") && line.contains("src/a.rs"),
            "{line}"
        );
        let text = SubagentChange::Event(AgentEvent::TextDelta {
            text: "found".into(),
        });
        assert_eq!(progress_line(&text).as_deref(), Some("found"));
        let usage = SubagentChange::Event(AgentEvent::Notice {
            level: tunacode_protocol::NoticeLevel::Info,
            message: "m".into(),
        });
        assert_eq!(progress_line(&usage), None);
    }
}
