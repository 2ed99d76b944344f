//! Attached files in the turns a compaction keeps. A summary replaces the older history, but a prompt
//! of the kept turns may carry a large `@file` attachment that alone fills the window. Such a prompt
//! is marked compacted (it stays in the session) and a copy takes its place whose attachments keep
//! only their head, with a note telling the model how to read the rest.

use tunacode_protocol::{Message, Part, content_text};

/// How much of an attached file's text a shortened attachment keeps (characters).
const KEPT_ATTACHMENT_CHARS: usize = 2000;

/// Attachments shorter than this are never shortened (characters).
const MIN_SHORTENED_CHARS: usize = 4000;

/// Shortens the attachments of the kept prompts from `from` on, oldest first, until `fits` says the
/// conversation fits. Returns the paths shortened.
pub fn shorten_kept_attachments(
    messages: &mut Vec<Message>,
    from: usize,
    fits: impl Fn(&[Message]) -> bool,
) -> Vec<String> {
    let mut shortened = Vec::new();
    let mut i = from;
    while i < messages.len() && !fits(messages) {
        let message = &messages[i];
        if !message.in_conversation() || !message.is_request() {
            i += 1;
            continue;
        }
        let Some((copy, paths)) = shortened_copy(message) else {
            i += 1;
            continue;
        };
        messages[i].mark_compacted();
        messages.insert(i + 1, copy);
        shortened.extend(paths);
        i += 2;
    }
    shortened
}

/// A copy of `message` whose long attachments are cut, with the paths cut; `None` when none is long.
fn shortened_copy(message: &Message) -> Option<(Message, Vec<String>)> {
    // Cut first, reading: the message is shared with the session and is copied only when cut.
    let mut cuts = Vec::new();
    let mut paths = Vec::new();
    for (index, part) in message.parts.iter().enumerate() {
        // A prompt with images keeps its list whole (its images go on being sent).
        let Part::UserPrompt(prompt) = part else {
            continue;
        };
        if prompt.content.as_str().is_none() {
            continue;
        }
        let (cut, cut_paths) = shorten_blocks(&content_text(&prompt.content));
        if !cut_paths.is_empty() {
            cuts.push((index, cut));
            paths.extend(cut_paths);
        }
    }
    if cuts.is_empty() {
        return None;
    }
    let mut copy = message.clone();
    for (index, cut) in cuts {
        if let Part::UserPrompt(prompt) = &mut copy.parts[index] {
            prompt.content = cut.into();
        }
    }
    Some((copy, paths))
}

/// `text` with the body of each long `<file path="…">` block cut to its head.
fn shorten_blocks(text: &str) -> (String, Vec<String>) {
    const OPEN: &str = "<file path=\"";
    const CLOSE: &str = "\n</file>";
    let mut out = String::with_capacity(text.len().min(64 * 1024));
    let mut paths = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        let after_open = &rest[start + OPEN.len()..];
        let (Some(quote), Some(close)) = (after_open.find("\">\n"), after_open.find(CLOSE)) else {
            break;
        };
        if quote > close {
            break;
        }
        let path = &after_open[..quote];
        let body = &after_open[quote + 3..close];
        out.push_str(&rest[..start + OPEN.len() + quote + 3]);
        let chars = body.chars().count();
        if chars >= MIN_SHORTENED_CHARS {
            let head: String = body.chars().take(KEPT_ATTACHMENT_CHARS).collect();
            out.push_str(&head);
            out.push_str(&format!(
                "\n[… attachment shortened when the context was compacted: {} of {} characters \
                 kept; read_file {path} for the rest]",
                KEPT_ATTACHMENT_CHARS, chars
            ));
            paths.push(path.to_string());
        } else {
            out.push_str(body);
        }
        out.push_str(CLOSE);
        rest = &after_open[close + CLOSE.len()..];
    }
    out.push_str(rest);
    (out, paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::conversation_tokens;
    use crate::mentions::file_block;

    #[test]
    fn a_long_attachment_in_a_kept_prompt_is_cut_and_the_original_kept_in_the_session() {
        let big = "fn line() {}\n".repeat(2000);
        let prompt = format!("explain this{}{}", file_block("src/big.rs", &big), {
            file_block("small.txt", "short")
        });
        let mut messages = vec![
            Message::user("old"),
            Message::response(vec![Part::text("ok")]),
            Message::user(prompt.clone()),
        ];
        let before = conversation_tokens(&messages);
        let cut = shorten_kept_attachments(&mut messages, 1, |m| conversation_tokens(m) < 2000);
        assert_eq!(cut, vec!["src/big.rs".to_string()]);
        assert!(conversation_tokens(&messages) < before / 5);
        assert_eq!(messages.len(), 4, "the original stays, marked");
        assert!(messages[2].is_compacted());
        assert_eq!(Message::user(prompt).parts, messages[2].parts);
        let Part::UserPrompt(kept) = &messages[3].parts[0] else {
            panic!("a prompt")
        };
        let text = content_text(&kept.content);
        assert!(text.starts_with("explain this\n\n<file path=\"src/big.rs\">\nfn line() {}"));
        assert!(
            text.contains("read_file src/big.rs for the rest]\n</file>"),
            "{text}"
        );
        assert!(
            text.ends_with("<file path=\"small.txt\">\nshort\n</file>"),
            "{text}"
        );
    }

    #[test]
    fn nothing_changes_when_the_conversation_already_fits_or_nothing_is_long() {
        let mut messages = vec![Message::user(format!("a{}", file_block("a", "tiny")))];
        let was = messages.clone();
        assert!(shorten_kept_attachments(&mut messages, 0, |_| false).is_empty());
        assert_eq!(messages, was);
        let mut big = vec![Message::user(file_block("b", &"x".repeat(9000)))];
        assert!(shorten_kept_attachments(&mut big, 0, |_| true).is_empty());
        assert_eq!(big.len(), 1);
    }
}
