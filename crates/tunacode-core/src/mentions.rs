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
    /// The images mentioned (`@shot.png`), sent as the model's image input.
    pub images: Vec<crate::prompt_images::PromptImage>,
}

pub use tunacode_protocol::runtime::Attachment;

/// An attached file's block: `<file path="…">` with the text, cut at 100 KiB with a note.
pub fn file_block(path: &str, text: &str) -> String {
    let mut body = text;
    let mut note = "";
    if body.len() > MAX_MENTION_BYTES {
        let mut cut = MAX_MENTION_BYTES;
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        body = &body[..cut];
        note = "\n[… cut at 100 KiB; use read_file for the rest]";
    }
    format!(
        "\n\n<file path=\"{path}\">\n{}{note}\n</file>",
        body.trim_end_matches('\n')
    )
}

/// Adds `attachments` after the mentioned files (each path once).
pub fn attach(expanded: &mut ExpandedPrompt, attachments: &[Attachment]) {
    for attachment in attachments {
        if expanded.attached.contains(&attachment.path) {
            continue;
        }
        expanded
            .text
            .push_str(&file_block(&attachment.path, &attachment.text));
        expanded.attached.push(attachment.path.clone());
    }
}

/// Attaches the files mentioned with `@path` in `prompt`.
pub fn expand_mentions(prompt: &str, workspace: &Workspace) -> ExpandedPrompt {
    let mut text = prompt.to_string();
    let mut attached: Vec<String> = Vec::new();
    let mut images = Vec::new();
    for cap in MENTION.captures_iter(prompt) {
        let raw = cap[1].trim_end_matches(['.', ',', ')', ']', ':', ';', '?', '!']);
        let Ok(path) = workspace.resolve(raw) else {
            continue;
        };
        // Never a secret (`.env`, the user's credentials), whoever wrote the mention: a custom
        // command from the repository can carry one.
        if !path.is_file() || workspace.secrets().reason_for(&path).is_some() {
            continue;
        }
        let shown = workspace.display(&path);
        if attached.contains(&shown) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if crate::prompt_images::sniff(&bytes).is_some() {
            // An image goes as an image (one too big stays as typed, like a binary file).
            if let Ok(image) = crate::prompt_images::image_of(&shown, &bytes) {
                images.push(image);
                attached.push(shown);
            }
            continue;
        }
        if bytes.iter().take(8192).any(|b| *b == 0) {
            continue;
        }
        text.push_str(&file_block(&shown, &String::from_utf8_lossy(&bytes)));
        attached.push(shown);
    }
    ExpandedPrompt {
        text,
        attached,
        images,
    }
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
    fn never_attaches_a_secrets_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".env"), "KEY=sk-secret").unwrap();
        std::fs::write(dir.path().join(".env.example"), "KEY=").unwrap();
        let ws = Workspace::new(dir.path());
        let out = expand_mentions("see @.env and @.env.example", &ws);
        assert_eq!(out.attached, vec![".env.example".to_string()]);
        assert!(!out.text.contains("sk-secret"));
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
