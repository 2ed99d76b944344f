//! Highlighted code blocks kept between renders of a streaming text, so a code block that grows
//! line by line is highlighted once per line, not once per frame.

use ratatui::text::Line;

use super::highlight::{Highlighter, LineHighlighter, highlight_code, highlightable};
use crate::theme::Theme;

/// A code block highlighted up to the end of its last complete line.
struct Entry {
    lang: String,
    /// The complete lines highlighted so far (each ending in `'\n'`).
    text: String,
    state: LineHighlighter<'static>,
    lines: Vec<Line<'static>>,
    used: bool,
}

/// Code blocks highlighted in the last render (for one theme).
#[derive(Default)]
pub(crate) struct CodeCache {
    entries: Vec<Entry>,
    /// Lines highlighted so far (complete and unfinished ones), for tests.
    highlighted: usize,
}

impl CodeCache {
    /// The same lines as [`highlight_code`], continuing a block seen in the last render when `code`
    /// extends it.
    pub(crate) fn highlight(
        &mut self,
        code: &str,
        lang: Option<&str>,
        theme: &Theme,
    ) -> Vec<Line<'static>> {
        let Some(lang) = highlightable(lang, theme) else {
            return highlight_code(code, lang, theme);
        };
        let complete = code.rfind('\n').map_or(0, |i| i + 1);
        let (done, partial) = code.split_at(complete);
        let found = self
            .entries
            .iter()
            .position(|e| !e.used && e.lang == lang && done.starts_with(e.text.as_str()));
        let index = found.unwrap_or_else(|| {
            self.entries.push(Entry {
                lang: lang.to_string(),
                text: String::new(),
                state: Highlighter::global().lines(Some(lang), theme),
                lines: Vec::new(),
                used: false,
            });
            self.entries.len() - 1
        });
        let Some(entry) = self.entries.get_mut(index) else {
            return highlight_code(code, Some(lang), theme);
        };
        entry.used = true;
        let new = done.get(entry.text.len()..).unwrap_or_default();
        for line in new.split_terminator('\n') {
            entry.lines.push(entry.state.highlight_line(line));
            self.highlighted += 1;
        }
        entry.text.push_str(new);
        let mut lines = entry.lines.clone();
        if !partial.is_empty() {
            lines.push(entry.state.clone().highlight_line(partial));
            self.highlighted += 1;
        }
        lines
    }

    /// Forgets the blocks the last render did not use.
    pub(crate) fn sweep(&mut self) {
        self.entries.retain(|e| e.used);
        for entry in &mut self.entries {
            entry.used = false;
        }
    }

    /// The blocks highlighted to their last complete line: language, code and lines (for the
    /// transcript to keep once the answer is finished).
    pub(crate) fn take_blocks(&mut self) -> Vec<(String, String, Vec<Line<'static>>)> {
        self.entries
            .drain(..)
            .map(|e| (e.lang, e.text, e.lines))
            .collect()
    }

    /// Forgets everything (the theme changed).
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }
}

impl std::fmt::Debug for CodeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeCache")
            .field("blocks", &self.entries.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_growing_block_is_highlighted_once_per_line() {
        let theme = Theme::dark();
        let code: String = (0..60)
            .map(|i| format!("let x{i} = \"{i}\"; // n\n"))
            .collect();
        let mut cache = CodeCache::default();
        let mut frames = 0;
        for end in (0..=code.len()).step_by(5) {
            let lines = cache.highlight(&code[..end], Some("rust"), &theme);
            if end % 20 == 0 || end == code.len() {
                assert_eq!(
                    lines,
                    highlight_code(&code[..end], Some("rust"), &theme),
                    "at {end}"
                );
            }
            cache.sweep();
            frames += 1;
        }
        // 60 complete lines, plus at most one unfinished line per frame.
        assert!(
            cache.highlighted <= 60 + frames,
            "{} lines, {frames} frames",
            cache.highlighted
        );
        assert_eq!(cache.entries.len(), 1);
        // A different block starts a new entry; the old one goes at the next sweep.
        let _ = cache.highlight("fn main() {}\n", Some("rust"), &theme);
        cache.sweep();
        assert_eq!(cache.entries.len(), 1);
        assert_eq!(cache.entries[0].text, "fn main() {}\n");
    }
}
