//! What to complete at the cursor (`@path` or `/command`), and how a chosen completion is put back
//! into the input.

/// The token being completed at the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompletionContext {
    /// An `@path` mention: `query` is the text after the `@`, `start` the byte offset of the `@`.
    File {
        /// The text typed after `@` up to the cursor.
        query: String,
        /// Byte offset of the `@`.
        start: usize,
    },
    /// A `/command` typed as the whole input so far: `query` is the text after the `/`, `start` is 0.
    Command {
        /// The text typed after `/` up to the cursor.
        query: String,
        /// Byte offset of the `/` (always 0).
        start: usize,
    },
}

impl CompletionContext {
    /// The text typed after the trigger character.
    pub fn query(&self) -> &str {
        match self {
            CompletionContext::File { query, .. } | CompletionContext::Command { query, .. } => {
                query
            }
        }
    }

    /// Byte offset of the trigger character (`@` or `/`).
    pub fn start(&self) -> usize {
        match self {
            CompletionContext::File { start, .. } | CompletionContext::Command { start, .. } => {
                *start
            }
        }
    }

    /// Byte offset just past the token (where the cursor was).
    pub fn end(&self) -> usize {
        self.start() + 1 + self.query().len()
    }
}

/// Whether an `@` after `c` starts a mention (as `tunacode_core` reads mentions).
fn opens_mention(c: char) -> bool {
    c.is_whitespace() || matches!(c, '(' | '[' | '{' | ',' | ';')
}

/// The completion context at `cursor_byte` in `text`, if any. The cursor must be at the end of the token
/// (end of text, whitespace or a closing bracket next):
/// - `File` when the cursor is right after `@token` and the `@` starts the text or follows whitespace
///   or one of `( [ { , ;`;
/// - `Command` when the text before the cursor is `/word` (letters, digits, `-`, `_`) on the first line.
///
/// A cursor that is past the end or not on a char boundary gives `None`.
pub fn completion_context(text: &str, cursor_byte: usize) -> Option<CompletionContext> {
    let before = text.get(..cursor_byte)?;
    let after = &text[cursor_byte..];
    if !after
        .chars()
        .next()
        .is_none_or(|c| c.is_whitespace() || matches!(c, ')' | ']' | '}'))
    {
        return None;
    }
    if let Some(query) = before.strip_prefix('/')
        && query
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_'))
    {
        return Some(CompletionContext::Command {
            query: query.to_string(),
            start: 0,
        });
    }
    let token_start = before
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let token = &before[token_start..];
    // The last `@` in the token that opens a mention: at the token start or after a bracket.
    let mut search_end = token.len();
    while let Some(at) = token[..search_end].rfind('@') {
        let opens = token[..at].chars().next_back().is_none_or(opens_mention);
        if opens {
            return Some(CompletionContext::File {
                query: token[at + 1..].to_string(),
                start: token_start + at,
            });
        }
        search_end = at;
    }
    None
}

/// Replaces the token of `ctx` in `text` by `chosen`; returns the new text and the new cursor (a byte
/// offset). A file becomes `@path ` (no space after a directory `dir/`, so completion goes on); a
/// command becomes `/name ` (`chosen` with or without the slash). No second space is added when one
/// already follows; the cursor then moves past it.
pub fn apply_completion(text: &str, ctx: &CompletionContext, chosen: &str) -> (String, usize) {
    let start = ctx.start().min(text.len());
    let end = ctx.end().clamp(start, text.len());
    let (Some(head), Some(tail)) = (text.get(..start), text.get(end..)) else {
        return (text.to_string(), text.len());
    };
    let (token, space) = match ctx {
        CompletionContext::File { .. } => (format!("@{chosen}"), !chosen.ends_with('/')),
        CompletionContext::Command { .. } => (
            format!("/{}", chosen.strip_prefix('/').unwrap_or(chosen)),
            true,
        ),
    };
    let mut out = String::with_capacity(text.len() + token.len() + 1);
    out.push_str(head);
    out.push_str(&token);
    let mut cursor = out.len();
    if space {
        if tail.starts_with(' ') {
            cursor += 1;
        } else {
            out.push(' ');
            cursor += 1;
        }
    }
    out.push_str(tail);
    (out, cursor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn file(query: &str, start: usize) -> Option<CompletionContext> {
        Some(CompletionContext::File {
            query: query.to_string(),
            start,
        })
    }

    fn at_end(text: &str) -> Option<CompletionContext> {
        completion_context(text, text.len())
    }

    #[test]
    fn finds_file_mentions() {
        assert_eq!(at_end("@"), file("", 0));
        assert_eq!(at_end("@src/ma"), file("src/ma", 0));
        assert_eq!(at_end("look at @src"), file("src", 8));
        assert_eq!(at_end("see (@a.rs"), file("a.rs", 5));
        assert_eq!(at_end("line one\n@x"), file("x", 9));
        assert_eq!(at_end("héllo @é"), file("é", 7));
        assert_eq!(completion_context("(@src) more", 5), file("src", 1));
    }

    #[test]
    fn ignores_emails_finished_tokens_and_mid_token_cursors() {
        assert_eq!(at_end("mail me@host"), None);
        assert_eq!(at_end("@src/main.rs "), None);
        assert_eq!(at_end("plain text"), None);
        assert_eq!(completion_context("@src/main.rs", 4), None);
        assert_eq!(completion_context("@src", 99), None);
        assert_eq!(completion_context("é", 1), None);
    }

    #[test]
    fn finds_commands_only_as_the_whole_first_word() {
        let cmd = |q: &str| {
            Some(CompletionContext::Command {
                query: q.to_string(),
                start: 0,
            })
        };
        assert_eq!(at_end("/"), cmd(""));
        assert_eq!(at_end("/mod"), cmd("mod"));
        assert_eq!(completion_context("/mod tail", 4), cmd("mod"));
        assert_eq!(at_end("/model gpt"), None);
        assert_eq!(at_end(" /model"), None);
        assert_eq!(at_end("x\n/model"), None);
        assert_eq!(at_end("/src/main"), None);
    }

    #[test]
    fn applies_files_commands_and_directories() {
        let text = "explain @src/ma please";
        let ctx = completion_context(text, 15).unwrap();
        assert_eq!(
            apply_completion(text, &ctx, "src/main.rs"),
            ("explain @src/main.rs please".to_string(), 21)
        );
        let ctx = at_end("fix @sr").unwrap();
        assert_eq!(
            apply_completion("fix @sr", &ctx, "src/"),
            ("fix @src/".to_string(), 9)
        );
        let ctx = at_end("fix @sr").unwrap();
        assert_eq!(
            apply_completion("fix @sr", &ctx, "src/lib.rs"),
            ("fix @src/lib.rs ".to_string(), 16)
        );
        let ctx = at_end("/mo").unwrap();
        assert_eq!(
            apply_completion("/mo", &ctx, "model"),
            ("/model ".to_string(), 7)
        );
        assert_eq!(
            apply_completion("/mo", &ctx, "/model"),
            ("/model ".to_string(), 7)
        );
    }

    #[test]
    fn context_end_is_the_cursor() {
        let ctx = completion_context("a @bé c", 6).unwrap();
        assert_eq!((ctx.query(), ctx.start(), ctx.end()), ("bé", 2, 6));
    }
}
