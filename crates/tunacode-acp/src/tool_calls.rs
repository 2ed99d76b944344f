//! How a tool call looks in the editor: the spec's `kind` (`read` for reads, `search` for searches,
//! `edit`, `execute`, `fetch`, …), a title, and the locations it touches.

use std::path::Path;

use agent_client_protocol::v1::schema::{ToolCall, ToolCallLocation, ToolCallStatus, ToolKind};
use serde_json::Value;

/// The kind of a call of `tool`.
pub(crate) fn kind(tool: &str) -> ToolKind {
    match tool {
        "read_file" | "list_dir" | "skill" => ToolKind::Read,
        "grep" | "glob" => ToolKind::Search,
        "write_file" | "update_file" | "apply_patch" => ToolKind::Edit,
        "bash" | "run_command" => ToolKind::Execute,
        "web_fetch" => ToolKind::Fetch,
        "todo" => ToolKind::Think,
        "present_plan" | "exit_plan_mode" => ToolKind::SwitchMode,
        _ => ToolKind::Other,
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
pub(crate) fn announce(id: &str, tool: &str, args: &Value, root: &Path) -> ToolCall {
    ToolCall::new(id.to_string(), title(tool, args))
        .kind(kind(tool))
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
        assert_eq!(kind("read_file"), ToolKind::Read);
        assert_eq!(kind("grep"), ToolKind::Search);
        assert_eq!(kind("update_file"), ToolKind::Edit);
        assert_eq!(kind("bash"), ToolKind::Execute);
        assert_eq!(kind("mcp__files__read"), ToolKind::Other);
        let read = json!({"file_path": "src/a.rs", "offset": 40});
        assert_eq!(title("read_file", &read), "Read src/a.rs");
        let at = locations("read_file", &read, root);
        assert_eq!(at[0].path, Path::new("/w/src/a.rs"));
        assert_eq!(at[0].line, Some(40));
        assert_eq!(title("bash", &json!({"command": " ls -la "})), "`ls -la`");
        assert!(locations("bash", &json!({"command": "ls"}), root).is_empty());
    }
}
