//! Which hooks a subject wakes, as Claude Code reads a matcher: empty, `*` or none matches all; a
//! matcher of only letters, digits, `_`, `-`, spaces, `,` and `|` is a list of exact names; anything
//! else is an unanchored regular expression. A tool is matched by its Claude Code name (`Bash`,
//! `Read`, `Write`, `Edit`, `Glob`, `Grep`, …) and by its own (`bash`, `read_file`, …).

use regex::Regex;

/// The name Claude Code gives the tool we call `ours` (MCP tools keep theirs: both write
/// `mcp__server__tool`).
pub fn claude_tool_name(ours: &str) -> &str {
    match ours {
        "bash" | "run_command" => "Bash",
        "read_file" => "Read",
        "write_file" => "Write",
        "update_file" | "apply_patch" => "Edit",
        "glob" => "Glob",
        "grep" => "Grep",
        "list_dir" => "LS",
        "web_fetch" => "WebFetch",
        "todo" => "TodoWrite",
        other => other,
    }
}

/// Whether `matcher` matches any of `names`.
pub fn matches(matcher: Option<&str>, names: &[&str]) -> bool {
    let Some(matcher) = matcher
        .map(str::trim)
        .filter(|m| !m.is_empty() && *m != "*")
    else {
        return true;
    };
    let plain = matcher
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | ',' | '|'));
    if plain {
        return matcher
            .split(['|', ','])
            .map(str::trim)
            .any(|want| names.contains(&want));
    }
    // A matcher that is not a valid expression matches nothing (said when the hooks are listed).
    Regex::new(matcher).is_ok_and(|re| names.iter().any(|n| re.is_match(n)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers_read_as_claude_code_reads_them() {
        let bash = ["Bash", "bash"];
        assert!(matches(None, &bash));
        assert!(matches(Some(""), &bash));
        assert!(matches(Some("*"), &bash));
        assert!(matches(Some("Bash"), &bash));
        assert!(matches(Some("bash"), &bash));
        assert!(!matches(Some("Edit|Write"), &bash));
        let edit = ["Edit", "update_file"];
        assert!(matches(Some("Edit|Write"), &edit));
        assert!(matches(Some("Write, Edit"), &edit));
        assert!(matches(Some("Ed.*"), &edit));
        assert!(!matches(Some("^dit"), &edit));
        assert!(
            !matches(Some("Ed("), &edit),
            "an invalid expression matches nothing"
        );
        assert!(matches(Some("mcp__memory__.*"), &["mcp__memory__save"]));
        assert!(!matches(Some("mcp__memory"), &["mcp__memory__save"]));
    }

    #[test]
    fn our_tools_have_claude_code_s_names() {
        assert_eq!(claude_tool_name("bash"), "Bash");
        assert_eq!(claude_tool_name("update_file"), "Edit");
        assert_eq!(claude_tool_name("mcp__x__y"), "mcp__x__y");
    }
}
