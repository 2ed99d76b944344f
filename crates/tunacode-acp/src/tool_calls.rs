//! How a tool call looks in the editor: the spec's `kind` (`read` for reads, `search` for searches,
//! `edit`, `execute`, `fetch`, …), a title, and the locations it touches.

use std::path::Path;

use agent_client_protocol::v1::schema::{ToolCall, ToolCallLocation, ToolCallStatus, ToolKind};
use serde_json::Value;
use tunacode_protocol::ToolKind as Can;

/// The editor's kind of a call of `tool`: from what the call may do (`can`, as the runtime classified
/// it), refined where the spec has a finer kind (searches, commands, fetches, the todo list, plan
/// mode). A
/// call replayed from history has no classification; its tool's usual one is used.
pub(crate) fn kind(tool: &str, can: Option<Can>) -> ToolKind {
    match (tool, can.or_else(|| usual(tool))) {
        ("grep" | "glob", _) => ToolKind::Search,
        // A command is run even when the runtime found it only reads.
        ("bash" | "run_command", _) => ToolKind::Execute,
        ("web_fetch", _) => ToolKind::Fetch,
        ("todo", _) => ToolKind::Think,
        ("present_plan" | "exit_plan_mode", _) => ToolKind::SwitchMode,
        (_, Some(Can::ReadOnly)) => ToolKind::Read,
        (_, Some(Can::Write)) => ToolKind::Edit,
        (_, Some(Can::Execute)) => ToolKind::Execute,
        (_, None) => ToolKind::Other,
    }
}

/// What a built-in tool usually may do, for calls with no classification (replayed history).
fn usual(tool: &str) -> Option<Can> {
    match tool {
        "read_file" | "list_dir" | "skill" => Some(Can::ReadOnly),
        "write_file" | "update_file" | "apply_patch" => Some(Can::Write),
        "bash" | "run_command" => Some(Can::Execute),
        _ => None,
    }
}

/// The argument `key` as text.
fn arg<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

/// A short title: what the call does, with its main argument.
pub(crate) fn title(tool: &str, args: &Value) -> String {
    let path = arg(args, "file_path").or_else(|| arg(args, "path"));
    match (tool, path) {
        ("read_file", Some(p)) => format!("Read {p}"),
        ("list_dir", p) => format!("List {}", p.unwrap_or(".")),
        ("write_file", Some(p)) => format!("Write {p}"),
        ("update_file", Some(p)) => format!("Edit {p}"),
        ("apply_patch", _) => "Apply patch".into(),
        ("grep", _) => format!("grep {}", arg(args, "pattern").unwrap_or_default()),
        ("glob", _) => format!("glob {}", arg(args, "pattern").unwrap_or_default()),
        ("bash" | "run_command", _) => {
            format!("`{}`", arg(args, "command").unwrap_or_default().trim())
        }
        ("web_fetch", _) => format!("Fetch {}", arg(args, "url").unwrap_or_default()),
        ("todo", _) => "Update the todo list".into(),
        ("skill", _) => format!("Load skill {}", arg(args, "name").unwrap_or_default()),
        ("task", _) => format!(
            "Sub-agent {}: {}",
            arg(args, "subagent_type").unwrap_or_default(),
            arg(args, "description").unwrap_or_default()
        ),
        _ => tool.to_string(),
    }
}

/// The files a call touches, absolute (with the first line read, for `read_file`).
pub(crate) fn locations(tool: &str, args: &Value, root: &Path) -> Vec<ToolCallLocation> {
    let Some(path) = arg(args, "file_path").or_else(|| arg(args, "path")) else {
        return Vec::new();
    };
    let location = ToolCallLocation::new(root.join(path));
    let line = (tool == "read_file")
        .then(|| args.get("offset").and_then(Value::as_u64))
        .flatten()
        .and_then(|l| u32::try_from(l).ok());
    vec![match line {
        Some(line) => location.line(line),
        None => location,
    }]
}

/// The `tool_call` announcing a call.
pub(crate) fn announce(
    id: &str,
    tool: &str,
    args: &Value,
    can: Option<Can>,
    root: &Path,
) -> ToolCall {
    ToolCall::new(id.to_string(), title(tool, args))
        .kind(kind(tool, can))
        .status(ToolCallStatus::Pending)
        .locations(locations(tool, args, root))
        .raw_input(args.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_searches_edits_and_commands_have_their_kinds_titles_and_locations() {
        let root = Path::new("/w");
        assert_eq!(kind("read_file", None), ToolKind::Read);
        assert_eq!(kind("grep", Some(Can::ReadOnly)), ToolKind::Search);
        assert_eq!(kind("update_file", None), ToolKind::Edit);
        assert_eq!(kind("bash", Some(Can::Execute)), ToolKind::Execute);
        // A tool the editor cannot know by name gets its kind from what the runtime says it may do.
        assert_eq!(kind("mcp__files__read", None), ToolKind::Other);
        assert_eq!(
            kind("mcp__files__read", Some(Can::ReadOnly)),
            ToolKind::Read
        );
        assert_eq!(kind("mcp__files__write", Some(Can::Write)), ToolKind::Edit);
        // A read-only command is still a command.
        assert_eq!(kind("bash", Some(Can::ReadOnly)), ToolKind::Execute);
        let read = json!({"file_path": "src/a.rs", "offset": 40});
        assert_eq!(title("read_file", &read), "Read src/a.rs");
        let at = locations("read_file", &read, root);
        assert_eq!(at[0].path, Path::new("/w/src/a.rs"));
        assert_eq!(at[0].line, Some(40));
        assert_eq!(title("bash", &json!({"command": " ls -la "})), "`ls -la`");
        assert!(locations("bash", &json!({"command": "ls"}), root).is_empty());
    }
}
