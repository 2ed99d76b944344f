//! Word wrapping of styled spans to a display width, and truncation of lines that must not wrap.
//!
//! Widths are terminal columns (`unicode-width`): wide characters (CJK, most emoji) take two columns,
//! combining marks none. Control characters are dropped and tabs become four spaces, so nothing written
//! to the terminal can move the cursor.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The spaces a tab expands to.
const TAB: &str = "    ";

/// Wraps `spans` into lines of at most `width` columns, word by word, keeping each span's style.
///
/// The first line starts with `indent_first`, the others with `indent_rest` (anything that converts
/// into a [`Line`]: a `Span<'static>`, a `String`, a `&'static str` or a `Vec<Span<'static>>`); the
/// indents count against `width`. A word longer than a whole line is broken between characters. A
/// `'\n'` in the text is a hard break (`"a\n"` gives two lines, like `str::split`). Spaces at a wrap
/// point are dropped; leading spaces of the text and after a hard break are kept. Empty input gives
/// one line holding only the first indent. When the indent leaves no room, one column is assumed.
pub fn wrap_spans(
    spans: Vec<Span<'static>>,
    width: usize,
    indent_first: impl Into<Line<'static>>,
    indent_rest: impl Into<Line<'static>>,
) -> Vec<Line<'static>> {
    let first: Line<'static> = indent_first.into();
    let rest: Line<'static> = indent_rest.into();
    let mut wrapper = Wrapper {
        avail_first: width.saturating_sub(first.width()).max(1),
        avail_rest: width.saturating_sub(rest.width()).max(1),
        first: first.spans,
        rest: rest.spans,
        lines: Vec::new(),
        current: Vec::new(),
        current_width: 0,
        pending_space: Vec::new(),
        pending_width: 0,
        word: Vec::new(),
        word_width: 0,
        line_start: true,
    };
    for span in spans {
        let style = span.style;
        for ch in span.content.chars() {
            wrapper.push_char(ch, style);
        }
    }
    wrapper.finish()
}

/// The display width of a line (the sum of its spans' widths).
pub fn line_width(line: &Line<'_>) -> usize {
    line.spans.iter().map(|s| s.content.width()).sum()
}

/// Cuts `line` to at most `width` columns, ending it with `…` (in the style of the span it cuts) when
/// anything was removed. Lines that fit are returned unchanged.
pub fn truncate_line(line: Line<'static>, width: usize) -> Line<'static> {
    if line_width(&line) <= width {
        return line;
    }
    let budget = width.saturating_sub(1);
    let mut used = 0;
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut ellipsis_style = Style::default();
    'outer: for span in line.spans {
        ellipsis_style = span.style;
        let mut kept = String::new();
        for ch in span.content.chars() {
            let w = ch.width().unwrap_or(0);
            if used + w > budget {
                if !kept.is_empty() {
                    spans.push(Span::styled(kept, span.style));
                }
                break 'outer;
            }
            used += w;
            kept.push(ch);
        }
        if !kept.is_empty() {
            spans.push(Span::styled(kept, span.style));
        }
    }
    if width > 0 {
        spans.push(Span::styled("…", ellipsis_style));
    }
    Line { spans, ..line }
}

/// `line` with each tab expanded to the next stop of `TAB`'s width (so columns after a tab line up, as
/// in an editor) and other control characters dropped.
pub(crate) fn expand_tabs(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    let mut column = 0;
    for ch in line.chars() {
        match ch {
            '\t' => {
                let spaces = TAB.len() - column % TAB.len();
                out.extend(std::iter::repeat_n(' ', spaces));
                column += spaces;
            }
            c if c.is_control() => {}
            c => {
                out.push(c);
                column += c.width().unwrap_or(0);
            }
        }
    }
    out
}

/// `text` without control characters (tabs become four spaces; `'\n'` is kept when `keep_newlines`).
pub(crate) fn sanitize(text: &str, keep_newlines: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '\t' => out.push_str(TAB),
            '\n' if keep_newlines => out.push('\n'),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Appends `ch` in `style` to `spans`, extending the last span when the style is the same.
fn push_styled(spans: &mut Vec<(String, Style)>, ch: char, style: Style) {
    match spans.last_mut() {
        Some((text, last)) if *last == style => text.push(ch),
        _ => spans.push((ch.to_string(), style)),
    }
}

/// Appends the styled pieces of `from` to `to`, merging equal styles at the seam.
fn append(to: &mut Vec<(String, Style)>, from: &mut Vec<(String, Style)>) {
    for (text, style) in from.drain(..) {
        match to.last_mut() {
            Some((last_text, last_style)) if *last_style == style => last_text.push_str(&text),
            _ => to.push((text, style)),
        }
    }
}

/// The state of one wrapping pass: the line being filled, the spaces before the next word, and the
/// word being read.
struct Wrapper {
    first: Vec<Span<'static>>,
    rest: Vec<Span<'static>>,
    avail_first: usize,
    avail_rest: usize,
    lines: Vec<Line<'static>>,
    current: Vec<(String, Style)>,
    current_width: usize,
    pending_space: Vec<(String, Style)>,
    pending_width: usize,
    word: Vec<(String, Style)>,
    word_width: usize,
    /// Nothing but kept leading spaces on the current line since the text or a hard break began.
    line_start: bool,
}

impl Wrapper {
    fn avail(&self) -> usize {
        if self.lines.is_empty() {
            self.avail_first
        } else {
            self.avail_rest
        }
    }

    fn push_char(&mut self, ch: char, style: Style) {
        match ch {
            '\n' => {
                self.flush_word();
                self.flush_space_at_end();
                self.end_line();
                self.line_start = true;
            }
            '\t' => {
                self.flush_word();
                for sp in TAB.chars() {
                    push_styled(&mut self.pending_space, sp, style);
                    self.pending_width += 1;
                }
            }
            c if c.is_whitespace() && c != '\u{a0}' => {
                self.flush_word();
                push_styled(&mut self.pending_space, ' ', style);
                self.pending_width += 1;
            }
            c if c.is_control() => {}
            c => {
                push_styled(&mut self.word, c, style);
                self.word_width += c.width().unwrap_or(0);
            }
        }
    }

    /// Leading spaces (at the start of the text or after a hard break) are content, not wrap points.
    fn flush_space_at_end(&mut self) {
        if self.line_start && self.current.is_empty() {
            let avail = self.avail();
            if self.pending_width <= avail {
                self.current_width += self.pending_width;
                append(&mut self.current, &mut self.pending_space);
            }
        }
        self.pending_space.clear();
        self.pending_width = 0;
    }

    fn flush_word(&mut self) {
        if self.word.is_empty() {
            return;
        }
        let avail = self.avail();
        if self.line_start && self.current.is_empty() && self.pending_width < avail {
            // Leading indentation of the text is kept while it leaves room for something.
            self.current_width += self.pending_width;
            self.pending_width = 0;
            append(&mut self.current, &mut self.pending_space);
        }
        self.line_start = false;
        let space = if self.current.is_empty() {
            0
        } else {
            self.pending_width
        };
        if self.current_width + space + self.word_width <= avail {
            if space > 0 {
                append(&mut self.current, &mut self.pending_space);
                self.current_width += space;
            }
        } else if !self.current.is_empty() {
            self.end_line();
        }
        self.pending_space.clear();
        self.pending_width = 0;
        if self.current_width + self.word_width <= self.avail() {
            self.current_width += self.word_width;
            append(&mut self.current, &mut self.word);
        } else {
            self.break_word();
        }
        self.word.clear();
        self.word_width = 0;
    }

    /// Places a word too long for a line, character by character.
    fn break_word(&mut self) {
        let word = std::mem::take(&mut self.word);
        for (text, style) in word {
            for ch in text.chars() {
                let w = ch.width().unwrap_or(0);
                if self.current_width + w > self.avail() && !self.current.is_empty() {
                    self.end_line();
                }
                push_styled(&mut self.current, ch, style);
                self.current_width += w;
            }
        }
    }

    fn end_line(&mut self) {
        let indent = if self.lines.is_empty() {
            self.first.clone()
        } else {
            self.rest.clone()
        };
        let mut spans = indent;
        spans.extend(
            self.current
                .drain(..)
                .map(|(text, style)| Span::styled(text, style)),
        );
        self.lines.push(Line::from(spans));
        self.current_width = 0;
    }

    fn finish(mut self) -> Vec<Line<'static>> {
        self.flush_word();
        self.flush_space_at_end();
        self.end_line();
        self.lines
    }
}
