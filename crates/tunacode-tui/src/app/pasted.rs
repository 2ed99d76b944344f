//! [`PastedTexts`]: a paste too big to edit comfortably goes into the input as a short placeholder
//! (`[Pasted text #1: 13797 lines, 1.0 MB]`, as Claude Code and Codex do), the text itself kept
//! aside and put back in its place when the message is sent. Every key then costs the same with a
//! megabyte pasted as with nothing: the editor re-wraps its whole text on each edit.

/// Pastes of more characters than this go in as a placeholder.
pub const INLINE_LIMIT: usize = 2_000;

/// The texts pasted as placeholders, in order.
#[derive(Debug, Default, Clone)]
pub struct PastedTexts {
    kept: Vec<(String, String)>,
}

impl PastedTexts {
    /// What to insert for pasted `text`: itself when short, else a placeholder (the text kept).
    pub fn insert(&mut self, text: String) -> String {
        if text.chars().count() <= INLINE_LIMIT {
            return text;
        }
        let lines = text.lines().count();
        let size = match text.len() {
            n if n >= 1000 * 1024 => format!("{:.1} MB", n as f64 / (1024.0 * 1024.0)),
            n => format!("{:.1} KB", n as f64 / 1024.0),
        };
        let placeholder = format!(
            "[Pasted text #{}: {lines} lines, {size}]",
            self.kept.len() + 1
        );
        self.kept.push((placeholder.clone(), text));
        placeholder
    }

    /// `typed` with each placeholder still in it replaced by its text (a placeholder the user
    /// edited is left as they wrote it).
    pub fn expand(&self, typed: &str) -> String {
        let mut text = typed.to_string();
        for (placeholder, pasted) in &self.kept {
            if let Some(at) = text.find(placeholder.as_str()) {
                text.replace_range(at..at + placeholder.len(), pasted);
            }
        }
        text
    }

    /// Forgets every kept text (the input was sent or cleared).
    pub fn clear(&mut self) {
        self.kept.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_big_paste_is_a_placeholder_that_expands_where_it_stands_and_a_small_one_is_itself() {
        let mut pasted = PastedTexts::default();
        assert_eq!(pasted.insert("short".into()), "short");
        let big = "line of text\n".repeat(400);
        let placeholder = pasted.insert(big.clone());
        assert_eq!(placeholder, "[Pasted text #1: 400 lines, 5.1 KB]");
        let typed = format!("look at this: {placeholder} and fix it");
        assert_eq!(
            pasted.expand(&typed),
            format!("look at this: {big} and fix it")
        );
        // An edited placeholder is the user's text now.
        let edited = typed.replace("#1:", "#1 ;");
        assert_eq!(pasted.expand(&edited), edited);
    }
}
