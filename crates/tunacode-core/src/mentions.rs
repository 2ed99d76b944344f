//! `@path` mentions in a prompt: each mentioned file inside the workspace is attached to the prompt, so
//! `tunacode run "explain @src/main.rs"` works like the TUI. Mentions of missing files, directories or
//! paths outside the workspace are left as typed.

use std::sync::LazyLock;

use regex::Regex;
use tunacode_tools::Workspace;

/// Largest file attached whole; a bigger one is cut with a note.
const MAX_MENTION_BYTES: usize = 100 * 1024;

#[allow(clippy::unwrap_used)] // A constant pattern, exercised by the tests.
static MENTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:^|[\s(\[{,;])@([A-Za-z0-9_./~\-][A-Za-z0-9_./\-]*)").unwrap());

/// A prompt with its mentioned files attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpandedPrompt {
    /// The prompt text followed by one `<file path="…">` block per attached file.
    pub text: String,
    /// The workspace-relative paths attached, in mention order.
    pub attached: Vec<String>,
}

/// Attaches the files mentioned with `@path` in `prompt`.
pub fn expand_mentions(prompt: &str, workspace: &Workspace) -> ExpandedPrompt {
    let mut text = prompt.to_string();
    let mut attached: Vec<String> = Vec::new();
    for cap in MENTION.captures_iter(prompt) {
        let raw = cap[1].trim_end_matches(['.', ',', ')', ']', ':', ';', '?', '!']);
        let Ok(path) = workspace.resolve(raw) else {
            continue;
        };
        if !path.is_file() {
            continue;
        }
        let shown = workspace.display(&path);
        if attached.contains(&shown) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if bytes.iter().take(8192).any(|b| *b == 0) {
            continue;
        }
        let mut body =
            String::from_utf8_lossy(&bytes[..bytes.len().min(MAX_MENTION_BYTES)]).into_owned();
        if bytes.len() > MAX_MENTION_BYTES {
            body.push_str(&format!(
                "\n[… cut at {} KiB; use read_file for the rest]",
                MAX_MENTION_BYTES / 1024
            ));
        }
        text.push_str(&format!(
            "\n\n<file path=\"{shown}\">\n{}\n</file>",
            body.trim_end_matches('\n')
        ));
        attached.push(shown);
    }
    ExpandedPrompt { text, attached }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attaches_mentioned_files_once_and_leaves_others_as_typed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(dir.path().join("a.txt"), "alpha").unwrap();
        let ws = Workspace::new(dir.path());
        let out = expand_mentions(
            "explain @src/main.rs and (@a.txt). Also @src/main.rs, @missing.rs, @src, me@host",
            &ws,
        );
        assert_eq!(
            out.attached,
            vec!["src/main.rs".to_string(), "a.txt".to_string()]
        );
        assert_eq!(
            out.text,
            "explain @src/main.rs and (@a.txt). Also @src/main.rs, @missing.rs, @src, me@host\n\n\
             <file path=\"src/main.rs\">\nfn main() {}\n</file>\n\n<file path=\"a.txt\">\nalpha\n</file>"
        );
    }

    #[test]
    fn refuses_paths_outside_the_workspace_and_cuts_big_files() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path());
        assert_eq!(
            expand_mentions("read @/etc/passwd", &ws).attached,
            Vec::<String>::new()
        );
        std::fs::write(
            dir.path().join("big.txt"),
            "x".repeat(MAX_MENTION_BYTES + 10),
        )
        .unwrap();
        let out = expand_mentions("@big.txt", &ws);
        assert!(out.text.contains("[… cut at 100 KiB"));
    }
}
