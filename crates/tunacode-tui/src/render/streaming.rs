//! Markdown that grows while an answer streams: finished blocks are rendered once and kept; only
//! the unfinished tail is rendered again on each frame.
//!
//! The source is cut at block boundaries that no later text can change: a line starting in the
//! first column, after a blank line outside any code fence or multi-line HTML block, that does not
//! start a list item (a later item could join an earlier list and make it loose or renumber it).
//! Blocks before the last boundary render exactly as they would in the whole text, so the lines equal
//! [`render_markdown`](super::render_markdown) of everything pushed so far. Link reference definitions (`[x]: url`) can
//! reach back to earlier text; once one appears, the whole text is rendered every time.

use ratatui::text::Line;

use super::code_cache::CodeCache;
use super::code_highlights::CodeHighlights;
use super::markdown::render_markdown_cached;
use crate::theme::Theme;

/// An open fenced code block: its fence character, fence length and indentation.
#[derive(Debug, Clone, Copy)]
struct Fence {
    ch: u8,
    len: usize,
    indent: usize,
}

/// Finds block boundaries, one complete line at a time.
#[derive(Debug, Default)]
struct Scanner {
    /// The start of the first line not scanned yet.
    pos: usize,
    fence: Option<Fence>,
    /// The end marker of an open HTML block that blank lines do not end (`-->`, `</pre>`, ...).
    html_end: Option<&'static str>,
    saw_blank: bool,
    /// The start of the last boundary found.
    boundary: usize,
    /// A link reference definition was seen.
    has_reference: bool,
}

impl Scanner {
    fn scan(&mut self, source: &str) {
        while let Some(len) = source.get(self.pos..).and_then(|rest| rest.find('\n')) {
            let start = self.pos;
            self.pos += len + 1;
            self.line(source.get(start..start + len).unwrap_or_default(), start);
        }
    }

    fn line(&mut self, line: &str, start: usize) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let indent = indentation(line);
        let rest = line.trim_start_matches([' ', '\t']);
        if let Some(fence) = self.fence {
            if indent < fence.indent + 4 && closes(rest, fence) {
                self.fence = None;
            }
            return;
        }
        if let Some(end) = self.html_end {
            if line.contains(end) {
                self.html_end = None;
            }
            self.saw_blank = false;
            return;
        }
        if rest.is_empty() {
            self.saw_blank = true;
            return;
        }
        if self.saw_blank && indent == 0 && !starts_list_item(line) && !line.starts_with('<') {
            self.boundary = start;
        }
        self.saw_blank = false;
        if indent < 4 {
            self.has_reference |= is_reference_definition(rest);
            self.html_end = html_block_end(rest).filter(|end| !rest.contains(end));
        }
        self.fence = opens(rest, indent);
    }
}

/// Columns of leading whitespace (a tab counts four).
fn indentation(line: &str) -> usize {
    line.chars()
        .take_while(|c| matches!(c, ' ' | '\t'))
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

/// The fence a line opens (three or more backticks or tildes; backtick fences take no backtick in
/// their info string).
fn opens(rest: &str, indent: usize) -> Option<Fence> {
    let ch = *rest.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = rest.bytes().take_while(|&b| b == ch).count();
    let info = rest.get(len..).unwrap_or_default();
    (len >= 3 && !(ch == b'`' && info.contains('`'))).then_some(Fence { ch, len, indent })
}

/// Whether a line (without its indentation) closes `fence`.
fn closes(rest: &str, fence: Fence) -> bool {
    let len = rest.bytes().take_while(|&b| b == fence.ch).count();
    len >= fence.len && rest.get(len..).is_some_and(|tail| tail.trim().is_empty())
}

/// Whether a line could start a list item (`-`, `+`, `*`, or up to nine digits and `.`/`)`,
/// followed by a space, a tab or the end of the line).
fn starts_list_item(line: &str) -> bool {
    let bytes = line.as_bytes();
    let after = match bytes.first() {
        Some(b'-' | b'+' | b'*') => 1,
        Some(b) if b.is_ascii_digit() => {
            let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits > 9 || !matches!(bytes.get(digits), Some(b'.' | b')')) {
                return false;
            }
            digits + 1
        }
        _ => return false,
    };
    matches!(bytes.get(after), None | Some(b' ' | b'\t' | b'\r'))
}

/// Whether a line looks like a link reference definition: `[label]: destination`.
fn is_reference_definition(rest: &str) -> bool {
    rest.starts_with('[') && !rest.starts_with("[^") && rest.find("]:").is_some_and(|i| i > 1)
}

/// The end marker of an HTML block a line starts that blank lines do not end.
fn html_block_end(rest: &str) -> Option<&'static str> {
    let lower: String = rest
        .chars()
        .take(10)
        .collect::<String>()
        .to_ascii_lowercase();
    [
        ("<!--", "-->"),
        ("<pre", "</pre>"),
        ("<script", "</script>"),
        ("<style", "</style>"),
    ]
    .into_iter()
    .chain([
        ("<textarea", "</textarea>"),
        ("<?", "?>"),
        ("<![cdata[", "]]>"),
    ])
    .find(|(start, _)| lower.starts_with(start))
    .map(|(_, end)| end)
}

/// The state of a [`StreamingMarkdown`].
#[derive(Debug, Default)]
struct Stream {
    source: String,
    scanner: Scanner,
    /// `source[..committed_to]` is rendered in `lines[..committed_lines]`.
    committed_to: usize,
    committed_lines: usize,
    lines: Vec<Line<'static>>,
    /// The width and theme `lines` were rendered for.
    key: Option<(u16, Theme)>,
    /// The tail changed since it was last rendered.
    dirty: bool,
    committed_renders: usize,
    /// Code blocks highlighted by the last renders.
    code: CodeCache,
    /// No more text is expected (see [`StreamingMarkdown::finish`]).
    finished: bool,
}

/// Markdown rendered incrementally as it streams in (see the module documentation). Small to move
/// around: the state lives on the heap.
#[derive(Debug, Default)]
pub struct StreamingMarkdown {
    state: Box<Stream>,
}

impl StreamingMarkdown {
    /// An empty text.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends streamed text.
    pub fn push(&mut self, delta: &str) {
        self.state.push(delta);
    }

    /// Everything pushed so far.
    pub fn source(&self) -> &str {
        &self.state.source
    }

    /// Empties the text (and the cache).
    pub fn clear(&mut self) {
        *self.state = Stream::default();
    }

    /// No more text is expected: the lines and highlighted code kept for streaming are dropped (the
    /// transcript renders a finished answer whole, highlighting only what it shows). Pushing more
    /// text makes it streaming again.
    pub fn finish(&mut self) {
        let state = &mut *self.state;
        state.lines = Vec::new();
        state.code = CodeCache::default();
        state.key = None;
        state.finished = true;
    }

    /// [`finish`](Self::finish), handing the code highlighted while it streamed to `store`, so the
    /// finished answer shows it highlighted at once.
    pub fn finish_into(&mut self, store: &CodeHighlights) {
        if let Some((_, theme)) = &self.state.key {
            store.adopt(self.state.code.take_blocks(), theme);
        }
        self.finish();
    }

    /// Whether [`finish`](Self::finish) was called since the last push.
    pub fn is_finished(&self) -> bool {
        self.state.finished
    }

    /// How many times finished blocks were rendered (once per newly finished run of blocks, and again
    /// after a change of width or theme): a diagnostic for tests.
    pub fn committed_renders(&self) -> usize {
        self.state.committed_renders
    }

    /// The lines of everything pushed so far, equal to
    /// [`render_markdown`](super::render_markdown)`(self.source(), width, theme)`. Only the blocks
    /// after the last finished one are rendered again, and only when text was pushed since.
    pub fn lines(&mut self, width: u16, theme: &Theme) -> &[Line<'static>] {
        self.state.lines(width, theme)
    }
}

impl Stream {
    /// Appends streamed text.
    fn push(&mut self, delta: &str) {
        if delta.is_empty() {
            return;
        }
        self.source.push_str(delta);
        self.scanner.scan(&self.source);
        self.dirty = true;
        self.finished = false;
    }

    /// The lines of everything pushed so far, equal to
    /// [`render_markdown`](super::render_markdown)`(self.source(), width, theme)`.
    fn lines(&mut self, width: u16, theme: &Theme) -> &[Line<'static>] {
        if self
            .key
            .as_ref()
            .is_none_or(|(w, t)| *w != width || t != theme)
        {
            self.key = Some((width, theme.clone()));
            self.lines.clear();
            self.committed_to = 0;
            self.committed_lines = 0;
            self.code.clear();
            self.dirty = true;
        }
        let partial = self.source.get(self.scanner.pos..).unwrap_or_default();
        if self.scanner.has_reference || is_reference_definition(partial.trim_start_matches(' ')) {
            if self.dirty {
                self.lines = render_markdown_cached(&self.source, width, theme, &mut self.code);
                self.code.sweep();
                self.committed_to = 0;
                self.committed_lines = 0;
                self.dirty = false;
            }
            return &self.lines;
        }
        let boundary = self.scanner.boundary;
        if boundary > self.committed_to {
            let chunk = self
                .source
                .get(self.committed_to..boundary)
                .unwrap_or_default();
            let rendered = render_markdown_cached(chunk, width, theme, &mut self.code);
            self.committed_renders += 1;
            self.lines.truncate(self.committed_lines);
            append_block(&mut self.lines, rendered);
            self.committed_lines = self.lines.len();
            self.committed_to = boundary;
            self.dirty = true;
        }
        if self.dirty {
            self.lines.truncate(self.committed_lines);
            let tail = self.source.get(self.committed_to..).unwrap_or_default();
            let rendered = render_markdown_cached(tail, width, theme, &mut self.code);
            append_block(&mut self.lines, rendered);
            self.code.sweep();
            self.dirty = false;
        }
        &self.lines
    }
}

/// Appends rendered blocks, with the one blank line that separates blocks.
fn append_block(lines: &mut Vec<Line<'static>>, block: Vec<Line<'static>>) {
    if !block.is_empty() && !lines.is_empty() {
        lines.push(Line::default());
    }
    lines.extend(block);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_items_and_fences_are_recognised() {
        for item in ["- a", "* a", "+ a", "-", "1. a", "12) a", "3.", "1.\tx"] {
            assert!(starts_list_item(item), "{item}");
        }
        for text in ["-a", "**bold**", "1.5 cm", "1234567890. a", "a", "#"] {
            assert!(!starts_list_item(text), "{text}");
        }
        let fence = opens("```rust", 0);
        assert!(fence.is_some_and(|f| f.len == 3 && f.ch == b'`'));
        assert!(opens("``x``", 0).is_none());
        assert!(opens("~~~~", 0).is_some_and(|f| closes("~~~~~ ", f) && !closes("~~~", f)));
        assert!(is_reference_definition("[docs]: https://x"));
        assert!(!is_reference_definition("[x] done"));
        assert_eq!(html_block_end("<!-- note"), Some("-->"));
        assert_eq!(html_block_end("<PRE>"), Some("</pre>"));
        assert_eq!(html_block_end("<div>"), None);
    }

    #[test]
    fn boundaries_skip_fences_lists_and_indented_lines() {
        let mut scanner = Scanner::default();
        let text = "a\n\n```\nx\n\ny\n```\n\n- item\n\n  more\n\nb\n";
        scanner.scan(text);
        assert_eq!(text.get(scanner.boundary..), Some("b\n"));
        let mut scanner = Scanner::default();
        scanner.scan("a\n\n```\nx\n\ny\n");
        assert_eq!(scanner.boundary, 3);
    }
}
