//! The names MCP tools are offered under: `mcp__<server>__<tool>`, made safe for every provider (at most
//! 64 characters of `[a-zA-Z0-9_-]`). A name that had to be cut ends in a hash of the full name, so two
//! long names stay apart; the reverse map is the tool itself (each offered tool keeps its server and
//! original name).

use sha2::{Digest, Sha256};

/// The longest tool name every provider accepts.
pub const MAX_NAME_LEN: usize = 64;
/// The prefix of every MCP tool's name.
pub const PREFIX: &str = tunacode_protocol::MCP_TOOL_PREFIX;

/// The name `tool` of `server` is offered under.
pub fn qualified_name(server: &str, tool: &str) -> String {
    let full = format!("{PREFIX}{}__{}", sanitize(server), sanitize(tool));
    if full.len() <= MAX_NAME_LEN && !changed(server) && !changed(tool) {
        return full;
    }
    // Cut or rewritten: a hash of the original pair keeps distinct tools distinct.
    let digest = Sha256::digest(format!("{server}\u{0}{tool}").as_bytes());
    let suffix: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    let keep = MAX_NAME_LEN - suffix.len() - 1;
    let mut head: String = full.chars().take(keep).collect();
    head.push('_');
    head.push_str(&suffix);
    head
}

/// The server part of a qualified name, for rules that name a whole server (`mcp__github__*`).
pub fn server_prefix(server: &str) -> String {
    format!("{PREFIX}{}__", sanitize(server))
}

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn changed(name: &str) -> bool {
    !name.chars().all(allowed)
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| if allowed(c) { c } else { '_' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_are_joined_as_they_are() {
        assert_eq!(
            qualified_name("everything", "echo"),
            "mcp__everything__echo"
        );
        assert_eq!(qualified_name("fs", "read-file"), "mcp__fs__read-file");
    }

    #[test]
    fn unsafe_or_long_names_are_rewritten_within_the_limit_and_stay_distinct() {
        let dotted = qualified_name("my.server", "do it");
        assert!(dotted.starts_with("mcp__my_server__do_it_"), "{dotted}");
        assert_ne!(dotted, qualified_name("my_server", "do_it"));
        let long_a = qualified_name("s", &"a".repeat(80));
        let long_b = qualified_name("s", &format!("{}b", "a".repeat(79)));
        for name in [&dotted, &long_a, &long_b] {
            assert!(name.len() <= MAX_NAME_LEN, "{name}");
            assert!(name.chars().all(allowed), "{name}");
        }
        assert_ne!(long_a, long_b);
    }
}
