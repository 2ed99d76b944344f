//! How a tool call reads in `run`'s text output: its key argument, shortened; and the lines a
//! sub-agent's work adds (`  ↳ explore → read_file src/a.rs`).

use serde_json::Value;
use tunacode_protocol::AgentEvent;
use tunacode_protocol::runtime::{SubagentChange, SubagentUpdate};

/// The argument worth showing for a tool call (a path, a pattern, a command), shortened.
pub(crate) fn key_args(args: &Value) -> String {
    let keys = ["file_path", "command", "pattern", "directory", "path"];
    let shown = keys
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
        .map(str::to_string)
        .unwrap_or_else(|| args.to_string());
    first_line(&shown, 100)
}

pub(crate) fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max).collect::<String>())
    } else {
        line.to_string()
    }
}

/// The stderr line for what a sub-agent did (`None`: nothing worth a line).
pub(crate) fn subagent_line(update: &SubagentUpdate) -> Option<String> {
    let kind = &update.label.agent_type;
    Some(match &update.change {
        SubagentChange::Started { model, .. } => {
            format!(
                "  ↳ {kind} ({}) started on {model}",
                update.label.description
            )
        }
        SubagentChange::Event(AgentEvent::ToolCallStarted {
            tool_name, args, ..
        }) => format!("  ↳ {kind} → {tool_name} {}", key_args(args)),
        SubagentChange::Event(_) => return None,
        SubagentChange::Finished(report) => format!(
            "  ↳ {kind} {} after {:.1}s",
            report.status.name(),
            report.duration_ms as f64 / 1000.0
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sub_agent_s_tool_calls_read_as_lines_under_its_task() {
        let update = SubagentUpdate {
            label: tunacode_protocol::runtime::SubagentLabel {
                parent_tool_call_id: "t1".into(),
                agent_type: "explore".into(),
                description: "find it".into(),
            },
            change: SubagentChange::Event(AgentEvent::ToolCallStarted {
                tool_call_id: "c".into(),
                tool_name: "read_file".into(),
                args: serde_json::json!({"file_path": "src/a.rs"}),
                kind: tunacode_protocol::ToolKind::ReadOnly,
            }),
        };
        assert_eq!(
            subagent_line(&update).as_deref(),
            Some("  ↳ explore → read_file src/a.rs")
        );
    }
}
