//! The completion popup: a bordered list of candidates with matched characters highlighted, the
//! selected row marked and a right-aligned detail column.

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Widget};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::commands::CommandMatch;
use super::files::FileMatch;
use crate::theme::Theme;

/// The most rows shown at once; the list scrolls to keep the selection visible.
pub const MAX_VISIBLE_ROWS: usize = 8;

/// One row of the popup.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PopupItem {
    /// What is shown (a path, or `/name [args]`).
    pub label: String,
    /// Right-aligned secondary text (a command's description), may be empty.
    pub detail: String,
    /// Positions (in chars) of `label` to highlight.
    pub highlight: Vec<u32>,
    /// What is inserted when the row is chosen (a path, or a command name), for `apply_completion`.
    pub value: String,
}

impl PopupItem {
    /// A row for a file match (the detail is empty).
    pub fn from_file(m: &FileMatch) -> Self {
        PopupItem {
            label: m.path.clone(),
            detail: String::new(),
            highlight: m.indices.clone(),
            value: m.path.clone(),
        }
    }

    /// A row for a command match: `/name [args]` with the description as detail.
    pub fn from_command(m: &CommandMatch) -> Self {
        let c = &m.command;
        let label = if c.args.is_empty() {
            format!("/{}", c.name)
        } else {
            format!("/{} {}", c.name, c.args)
        };
        PopupItem {
            label,
            detail: c.description.to_string(),
            highlight: m.indices.iter().map(|i| i + 1).collect(),
            value: c.name.to_string(),
        }
    }
}

/// The list of completion candidates and the selected one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CompletionPopup {
    /// The candidates, best first.
    pub items: Vec<PopupItem>,
    /// The index of the selected item.
    pub selected: usize,
}

impl CompletionPopup {
    /// A popup over `items` with the first one selected.
    pub fn new(items: Vec<PopupItem>) -> Self {
        CompletionPopup { items, selected: 0 }
    }

    /// A popup over file matches.
    pub fn from_files(matches: &[FileMatch]) -> Self {
        Self::new(matches.iter().map(PopupItem::from_file).collect())
    }

    /// A popup over command matches.
    pub fn from_commands(matches: &[CommandMatch]) -> Self {
        Self::new(matches.iter().map(PopupItem::from_command).collect())
    }

    /// Whether there is nothing to show.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The selected item, if any.
    pub fn selected_item(&self) -> Option<&PopupItem> {
        self.items.get(self.selected)
    }

    /// Selects the next item, wrapping to the first.
    pub fn select_next(&mut self) {
        if !self.items.is_empty() {
            self.selected = (self.selected + 1) % self.items.len();
        }
    }

    /// Selects the previous item, wrapping to the last.
    pub fn select_prev(&mut self) {
        if !self.items.is_empty() {
            self.selected = self.selected.min(self.items.len() - 1);
            self.selected = self.selected.checked_sub(1).unwrap_or(self.items.len() - 1);
        }
    }

    /// The rows needed: the visible items plus the two borders (0 when empty).
    pub fn height(&self) -> u16 {
        match self.visible_rows() {
            0 => 0,
            n => u16::try_from(n + 2).unwrap_or(u16::MAX),
        }
    }

    /// The width that shows every label and detail in full (borders and padding included).
    pub fn preferred_width(&self) -> u16 {
        let widest = self
            .items
            .iter()
            .map(|item| {
                let detail = item.detail.width();
                item.label.width() + if detail == 0 { 0 } else { detail + 2 }
            })
            .max()
            .unwrap_or(0);
        u16::try_from(widest + 4).unwrap_or(u16::MAX)
    }

    fn visible_rows(&self) -> usize {
        self.items.len().min(MAX_VISIBLE_ROWS)
    }

    /// The index of the first visible item: the selection is kept in view.
    fn offset(&self, rows: usize) -> usize {
        let selected = self.selected.min(self.items.len().saturating_sub(1));
        (selected + 1).saturating_sub(rows)
    }

    /// Draws the popup over `area` (cleared first); nothing when empty.
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if self.items.is_empty() || area.is_empty() {
            return;
        }
        Clear.render(area, buf);
        let mut block = Block::bordered()
            .border_type(BorderType::Rounded)
            .border_style(theme.border);
        if self.items.len() > MAX_VISIBLE_ROWS {
            let position = format!(" {}/{} ", self.selected + 1, self.items.len());
            block =
                block.title_bottom(Line::styled(position, theme.muted).alignment(Alignment::Right));
        }
        let inner = block.inner(area);
        block.render(area, buf);
        let rows = self.visible_rows().min(usize::from(inner.height));
        let offset = self.offset(rows);
        for (row, (index, item)) in self
            .items
            .iter()
            .enumerate()
            .skip(offset)
            .take(rows)
            .enumerate()
        {
            let y = inner.y + u16::try_from(row).unwrap_or(u16::MAX);
            let line = Rect::new(inner.x, y, inner.width, 1);
            let selected = index == self.selected;
            render_row(item, line, buf, theme, selected);
        }
    }
}

/// One row: ` label … detail ` with one column of padding each side.
fn render_row(item: &PopupItem, area: Rect, buf: &mut Buffer, theme: &Theme, selected: bool) {
    let (base, matched, detail_style) = if selected {
        let s = theme.selected;
        (s, s.add_modifier(Modifier::BOLD), s)
    } else {
        (theme.text, theme.text.patch(theme.accent), theme.muted)
    };
    buf.set_style(area, base);
    let usable = usize::from(area.width.saturating_sub(2));
    if usable == 0 {
        return;
    }
    let label_width = item.label.width();
    let detail_width = item.detail.width();
    let (label_budget, detail_budget) = if detail_width == 0 {
        (usable, 0)
    } else if label_width + 2 + detail_width <= usable {
        (label_width, detail_width)
    } else {
        let rest = usable.saturating_sub(label_width + 2);
        if rest >= detail_width.min(8) {
            (label_width, rest)
        } else {
            (usable, 0)
        }
    };
    let label = label_spans(item, label_budget, base, matched);
    let x = area.x + 1;
    buf.set_line(
        x,
        area.y,
        &label,
        u16::try_from(label_budget).unwrap_or(u16::MAX),
    );
    if detail_budget > 0 {
        let detail = truncate_end(&item.detail, detail_budget);
        let width = detail.width();
        let dx = area.x + 1 + u16::try_from(usable - width).unwrap_or(0);
        buf.set_span(
            dx,
            area.y,
            &Span::styled(detail, detail_style),
            u16::try_from(width).unwrap_or(0),
        );
    }
}

/// The label as spans within `budget` columns; a label too wide loses its start (`…` first), since a
/// path's end says most.
fn label_spans(item: &PopupItem, budget: usize, base: Style, matched: Style) -> Line<'static> {
    let chars: Vec<char> = item.label.chars().collect();
    let width_of = |c: &char| c.width().unwrap_or(0);
    let mut skip = 0;
    let mut prefix = "";
    if item.label.width() > budget {
        prefix = "…";
        let mut width: usize = chars.iter().map(width_of).sum();
        while skip < chars.len() && width + 1 > budget {
            width -= width_of(&chars[skip]);
            skip += 1;
        }
    }
    let mut spans = vec![Span::styled(prefix, base)];
    let mut run = String::new();
    let mut run_matched = false;
    for (i, c) in chars.iter().enumerate().skip(skip) {
        let is_matched = u32::try_from(i).is_ok_and(|i| item.highlight.contains(&i));
        if is_matched != run_matched && !run.is_empty() {
            let style = if run_matched { matched } else { base };
            spans.push(Span::styled(std::mem::take(&mut run), style));
        }
        run_matched = is_matched;
        run.push(*c);
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, if run_matched { matched } else { base }));
    }
    Line::from(spans)
}

/// `text` cut to `budget` columns, ending in `…` when cut.
fn truncate_end(text: &str, budget: usize) -> String {
    if text.width() <= budget {
        return text.to_string();
    }
    let mut out = String::new();
    let mut width = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if width + w + 1 > budget {
            break;
        }
        width += w;
        out.push(c);
    }
    out.push('…');
    out
}

#[cfg(test)]
#[path = "popup_tests.rs"]
mod tests;
