//! Markdown (CommonMark + tables, strikethrough, task lists) to styled, wrapped lines.
//!
//! Every line returned fits the width (code lines and over-wide tables are cut with `…`), so a
//! caller can count rows by counting lines. Blocks are separated by exactly one blank line. Any input
//! renders, including markdown cut anywhere while it streams (an unclosed code fence is a code block).

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::code_cache::CodeCache;
use super::code_highlights::LazyCode;
use super::container::{Container, blank_prefix, rest_prefix, take_prefix};
use super::highlight::highlight_code;
use super::table::TableBuf;
use super::wrap::{line_width, sanitize, truncate_line, wrap_spans};
use crate::theme::Theme;

/// The bullets of unordered lists, by nesting depth.
const BULLETS: [&str; 3] = ["• ", "◦ ", "▪ "];

/// The markdown extensions the renderer understands.
fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Renders markdown `text` to lines at most `width` columns wide, styled from `theme`.
pub fn render_markdown(text: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    render(text, width, theme, Code::Now)
}

/// [`render_markdown`], highlighting code blocks through `cache` (for streaming).
pub(crate) fn render_markdown_cached(
    text: &str,
    width: u16,
    theme: &Theme,
    cache: &mut CodeCache,
) -> Vec<Line<'static>> {
    render(text, width, theme, Code::Streaming(cache))
}

/// [`render_markdown`] of a finished answer: code blocks highlighted when `code` has them, plain
/// until then (see [`LazyCode`]).
pub(crate) fn render_markdown_lazy(
    text: &str,
    width: u16,
    theme: &Theme,
    code: &mut LazyCode<'_>,
) -> Vec<Line<'static>> {
    render(text, width, theme, Code::Lazy(code))
}

/// Where a render's code blocks get their highlighting.
enum Code<'t, 'c> {
    /// Highlighted now.
    Now,
    /// Continued from the last render of a growing text.
    Streaming(&'t mut CodeCache),
    /// From the transcript's worker, plain until it has them.
    Lazy(&'t mut LazyCode<'c>),
}

fn render(text: &str, width: u16, theme: &Theme, code: Code<'_, '_>) -> Vec<Line<'static>> {
    let mut renderer = Renderer::new(usize::from(width).max(1), theme, code);
    for event in Parser::new_ext(text, options()) {
        renderer.event(event);
    }
    renderer.finish()
}

/// The state of one rendering pass over the parser's events.
struct Renderer<'t, 'c> {
    theme: &'t Theme,
    width: usize,
    out: Vec<Line<'static>>,
    containers: Vec<Container>,
    inline: Vec<Span<'static>>,
    styles: Vec<Style>,
    links: Vec<(String, usize)>,
    heading: Option<HeadingLevel>,
    code: Option<(Option<String>, String)>,
    table: Option<TableBuf>,
    pending_blank: bool,
    highlights: Code<'t, 'c>,
}

impl<'t, 'c> Renderer<'t, 'c> {
    fn new(width: usize, theme: &'t Theme, highlights: Code<'t, 'c>) -> Self {
        Renderer {
            theme,
            width,
            out: Vec::new(),
            containers: Vec::new(),
            inline: Vec::new(),
            styles: Vec::new(),
            links: Vec::new(),
            heading: None,
            code: None,
            table: None,
            pending_blank: false,
            highlights,
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => match self.code.as_mut() {
                Some((_, code)) => code.push_str(&text),
                None => self.text(&text, self.style()),
            },
            Event::Code(code) => {
                let code = sanitize(&code, false);
                if self.theme.inline_code == Style::default() {
                    self.inline
                        .push(Span::styled(format!("`{code}`"), self.theme.inline_code));
                } else {
                    self.inline.push(Span::styled(code, self.theme.inline_code));
                }
            }
            Event::Html(html) | Event::InlineHtml(html) => self.text(&html, self.theme.muted),
            Event::InlineMath(text) | Event::DisplayMath(text) | Event::FootnoteReference(text) => {
                self.text(&text, self.style());
            }
            Event::SoftBreak => self.text(" ", self.style()),
            Event::HardBreak => self.text("\n", self.style()),
            Event::Rule => {
                self.flush_inline();
                self.begin_block();
                let prefix = self.take_prefix();
                let rule = "─".repeat(self.width.saturating_sub(spans_width(&prefix)).max(1));
                self.push_line(prefix, vec![Span::styled(rule, self.theme.muted)]);
                self.pending_blank = true;
            }
            Event::TaskListMarker(checked) => self.task_marker(checked),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.start_paragraph(),
            Tag::Heading { level, .. } => {
                self.flush_inline();
                self.heading = Some(level);
            }
            Tag::BlockQuote(_) => {
                self.flush_inline();
                self.containers.push(Container::Quote { started: false });
            }
            Tag::CodeBlock(kind) => {
                self.flush_inline();
                self.code = Some((code_language(kind), String::new()));
            }
            Tag::HtmlBlock => self.flush_inline(),
            Tag::List(start) => {
                self.flush_inline();
                self.containers.push(Container::List {
                    next: start,
                    loose: false,
                    items: 0,
                });
            }
            Tag::Item => self.start_item(),
            Tag::Table(aligns) => {
                self.flush_inline();
                self.table = Some(TableBuf::new(aligns));
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(table) = self.table.as_mut() {
                    table.start_row();
                }
            }
            Tag::TableCell => self.inline.clear(),
            Tag::Emphasis => self.push_modifier(Modifier::ITALIC),
            Tag::Strong => self.push_modifier(Modifier::BOLD),
            Tag::Strikethrough => self.push_modifier(Modifier::CROSSED_OUT),
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.styles.push(self.theme.link);
                self.links.push((dest_url.to_string(), self.inline.len()));
            }
            _ => {}
        }
    }

    /// A paragraph in a list item makes the item's list loose (its items are set apart by blank
    /// lines).
    fn start_paragraph(&mut self) {
        self.flush_inline();
        if matches!(self.containers.last(), Some(Container::Item { .. })) {
            let parent_list = self.containers.iter_mut().rev().nth(1);
            if let Some(Container::List { loose, .. }) = parent_list {
                *loose = true;
            }
        }
    }

    /// Opens an inline style that adds `modifier` (emphasis, strong, strikethrough).
    fn push_modifier(&mut self, modifier: Modifier) {
        self.styles.push(Style::default().add_modifier(modifier));
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => {
                self.flush_inline();
                self.pending_blank = true;
            }
            TagEnd::Heading(_) => {
                self.flush_inline();
                self.heading = None;
                self.pending_blank = true;
            }
            TagEnd::BlockQuote(_) | TagEnd::List(_) => {
                self.flush_inline();
                self.containers.pop();
                self.pending_blank = true;
            }
            TagEnd::CodeBlock => self.end_code(),
            TagEnd::Item => {
                self.flush_inline();
                if let Some(Container::Item { used: false, .. }) = self.containers.last() {
                    self.begin_block();
                    let prefix = self.take_prefix();
                    self.push_line(prefix, Vec::new());
                }
                self.containers.pop();
            }
            TagEnd::Table => self.end_table(),
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(table) = self.table.as_mut() {
                    table.end_row(tag == TagEnd::TableHead);
                }
            }
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.inline);
                if let Some(table) = self.table.as_mut() {
                    table.push_cell(cell);
                }
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link | TagEnd::Image => self.end_link(),
            _ => {}
        }
    }

    /// The style of ordinary text here: the block's base style with the open inline styles on top.
    fn style(&self) -> Style {
        let base = match self.heading {
            Some(HeadingLevel::H1) => self
                .theme
                .heading
                .add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            Some(HeadingLevel::H2) => self.theme.heading.add_modifier(Modifier::BOLD),
            Some(_) => self.theme.heading.add_modifier(Modifier::ITALIC),
            None if self
                .containers
                .iter()
                .any(|c| matches!(c, Container::Quote { .. })) =>
            {
                self.theme.text.patch(self.theme.quote)
            }
            None => self.theme.text,
        };
        self.styles
            .iter()
            .fold(base, |style, patch| style.patch(*patch))
    }

    fn text(&mut self, text: &str, style: Style) {
        let text = sanitize(text, true);
        if !text.is_empty() {
            self.inline.push(Span::styled(text, style));
        }
    }

    fn start_item(&mut self) {
        self.flush_inline();
        let depth = self
            .containers
            .iter()
            .filter(|c| matches!(c, Container::List { .. }))
            .count();
        let Some(Container::List { next, loose, items }) = self.containers.last_mut() else {
            return;
        };
        if *items > 0 && !*loose {
            self.pending_blank = false;
        }
        *items += 1;
        let marker = match next {
            Some(n) => {
                let marker = format!("{n}. ");
                *n = n.saturating_add(1);
                marker
            }
            None => BULLETS[depth.saturating_sub(1) % BULLETS.len()].to_string(),
        };
        let width = marker.width();
        let marker = vec![Span::styled(marker, self.theme.accent)];
        self.containers.push(Container::Item {
            marker,
            width,
            used: false,
        });
    }

    /// `[x]`/`[ ]` replaces the bullet of an unordered item, or follows the number of an ordered one.
    fn task_marker(&mut self, checked: bool) {
        let (text, style) = if checked {
            ("[x] ", self.theme.success)
        } else {
            ("[ ] ", self.theme.muted)
        };
        let bullet_item = self.containers.len() >= 2
            && matches!(
                self.containers[self.containers.len() - 2],
                Container::List { next: None, .. }
            );
        match self.containers.last_mut() {
            Some(Container::Item {
                marker,
                width,
                used: false,
            }) if bullet_item => {
                *marker = vec![Span::styled(text, style)];
                *width = text.width();
            }
            _ => self.inline.push(Span::styled(text, style)),
        }
    }

    fn end_link(&mut self) {
        self.styles.pop();
        let Some((url, start)) = self.links.pop() else {
            return;
        };
        let text: String = self
            .inline
            .get(start..)
            .unwrap_or_default()
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        let same = url == text || url.strip_prefix("mailto:") == Some(text.as_str());
        if !url.is_empty() && !same {
            self.inline.push(Span::styled(
                format!(" ({})", sanitize(&url, false)),
                self.theme.muted,
            ));
        }
    }

    fn end_code(&mut self) {
        let Some((lang, code)) = self.code.take() else {
            return;
        };
        let lang = lang.as_deref();
        let lines = match &mut self.highlights {
            Code::Now => highlight_code(&code, lang, self.theme),
            Code::Streaming(cache) => cache.highlight(&code, lang, self.theme),
            Code::Lazy(lazy) => lazy.lines(&code, lang, self.theme),
        };
        if !lines.is_empty() {
            self.begin_block();
        }
        for line in lines {
            let prefix = self.take_prefix();
            let mut spans = vec![Span::raw("  ")];
            spans.extend(line.spans);
            self.push_line(prefix, spans);
        }
        self.pending_blank = true;
    }

    fn end_table(&mut self) {
        let Some(table) = self.table.take() else {
            return;
        };
        let room = self.width.saturating_sub(spans_width(&self.rest_prefix()));
        let lines = table.layout(room, self.theme);
        if !lines.is_empty() {
            self.begin_block();
        }
        for line in lines {
            let prefix = self.take_prefix();
            self.push_line(prefix, line.spans);
        }
        self.pending_blank = true;
    }

    /// Wraps and emits the collected inline text (a paragraph, heading, or the text of a tight item).
    fn flush_inline(&mut self) {
        while let Some(last) = self.inline.last_mut() {
            let trimmed = last.content.trim_end_matches('\n');
            if trimmed.is_empty() {
                self.inline.pop();
            } else {
                if trimmed.len() != last.content.len() {
                    last.content = trimmed.to_string().into();
                }
                break;
            }
        }
        if self.inline.is_empty() {
            return;
        }
        self.begin_block();
        let spans = std::mem::take(&mut self.inline);
        let first = self.take_prefix();
        let rest = self.rest_prefix();
        self.out.extend(wrap_spans(spans, self.width, first, rest));
    }

    /// Emits the blank line owed before a new block (never at the start).
    fn begin_block(&mut self) {
        if std::mem::take(&mut self.pending_blank) && !self.out.is_empty() {
            let prefix = blank_prefix(&self.containers, self.theme.quote);
            self.out.push(Line::from(prefix));
        }
    }

    /// The prefix of the next line: list markers not shown yet are shown (and used up).
    fn take_prefix(&mut self) -> Vec<Span<'static>> {
        take_prefix(&mut self.containers, self.theme.quote)
    }

    /// The prefix of continuation lines.
    fn rest_prefix(&self) -> Vec<Span<'static>> {
        rest_prefix(&self.containers, self.theme.quote)
    }

    fn push_line(&mut self, mut prefix: Vec<Span<'static>>, spans: Vec<Span<'static>>) {
        prefix.extend(spans);
        self.out.push(Line::from(prefix));
    }

    fn finish(mut self) -> Vec<Line<'static>> {
        self.flush_inline();
        let width = self.width;
        self.out
            .into_iter()
            .map(|line| {
                if line_width(&line) > width {
                    truncate_line(line, width)
                } else {
                    line
                }
            })
            .collect()
    }
}

/// The language a code block names for highlighting: the first word of a fence's info string.
fn code_language(kind: CodeBlockKind<'_>) -> Option<String> {
    match kind {
        CodeBlockKind::Fenced(info) => info
            .split([',', ' ', '\t', '{'])
            .next()
            .filter(|l| !l.is_empty())
            .map(str::to_string),
        CodeBlockKind::Indented => None,
    }
}

/// The display width of some spans.
fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| s.content.width()).sum()
}
