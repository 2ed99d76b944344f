//! A tool call's arguments in Claude Code's shape (what hook scripts written for it read: `command`
//! for `Bash`, an absolute `file_path`, `old_string`/`new_string` for `Edit`, `content` for `Write`),
//! and an `updatedInput` a hook returns, back in ours. Other tools' arguments pass as they are.

use std::path::Path;

use serde_json::{Map, Value};

/// `args` of tool `ours` as Claude Code would have sent them, paths made absolute under `root`.
pub fn to_claude(ours: &str, args: &Map<String, Value>, root: &Path) -> Value {
    let mut input = args.clone();
    if let Some(Value::String(path)) = input.get("file_path")
        && !Path::new(path).is_absolute()
    {
        let absolute = root.join(path).to_string_lossy().into_owned();
        input.insert("file_path".into(), Value::String(absolute));
    }
    match ours {
        "update_file" => rename(
            &mut input,
            &[("target", "old_string"), ("replacement", "new_string")],
        ),
        "bash" => {
            // Claude Code's Bash timeout is in milliseconds; ours in seconds.
            if let Some(secs) = input.get("timeout").and_then(Value::as_u64) {
                input.insert("timeout".into(), Value::from(secs.saturating_mul(1000)));
            }
        }
        _ => {}
    }
    Value::Object(input)
}

/// A hook's `updatedInput` for tool `ours`, back in our arguments (paths as the hook gave them).
pub fn from_claude(ours: &str, updated: &Map<String, Value>) -> Map<String, Value> {
    let mut args = updated.clone();
    match ours {
        "update_file" => rename(
            &mut args,
            &[("old_string", "target"), ("new_string", "replacement")],
        ),
        "bash" => {
            if let Some(ms) = args.get("timeout").and_then(Value::as_u64) {
                args.insert("timeout".into(), Value::from(ms.div_ceil(1000)));
            }
            // Claude Code's own fields our bash does not take.
            args.remove("description");
            args.remove("run_in_background");
        }
        _ => {}
    }
    args
}

fn rename(map: &mut Map<String, Value>, pairs: &[(&str, &str)]) {
    for (from, to) in pairs {
        if let Some(value) = map.remove(*from) {
            map.insert((*to).to_string(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn an_edit_goes_out_as_claude_code_s_edit_and_comes_back_as_ours() {
        let args = object(json!({"file_path": "src/a.rs", "target": "x", "replacement": "y"}));
        let out = to_claude("update_file", &args, Path::new("/ws"));
        assert_eq!(
            out,
            json!({"file_path": "/ws/src/a.rs", "old_string": "x", "new_string": "y"})
        );
        let back = from_claude("update_file", &object(out));
        assert_eq!(
            Value::Object(back),
            json!({"file_path": "/ws/src/a.rs", "target": "x", "replacement": "y"})
        );
    }

    #[test]
    fn a_bash_timeout_is_milliseconds_for_hooks() {
        let out = to_claude(
            "bash",
            &object(json!({"command": "ls", "timeout": 5})),
            Path::new("/"),
        );
        assert_eq!(out, json!({"command": "ls", "timeout": 5000}));
        let back = from_claude(
            "bash",
            &object(json!({"command": "ls -a", "timeout": 1500, "description": "list"})),
        );
        assert_eq!(
            Value::Object(back),
            json!({"command": "ls -a", "timeout": 2})
        );
    }
}
