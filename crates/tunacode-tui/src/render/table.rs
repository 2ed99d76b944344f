//! Markdown tables laid out as aligned columns separated by `│`, with a `─┼─` rule under the header.
//! Columns shrink to fit the width (the widest first) and their cells wrap.

use pulldown_cmark::Alignment;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::wrap::{line_width, wrap_spans};
use crate::theme::Theme;

/// The separator between two columns.
const SEPARATOR: &str = " │ ";

/// The cells of a table as the parser delivers them.
pub(crate) struct TableBuf {
    aligns: Vec<Alignment>,
    rows: Vec<Vec<Vec<Span<'static>>>>,
    header_rows: usize,
    row: Vec<Vec<Span<'static>>>,
}

impl TableBuf {
    /// An empty table with the given column alignments.
    pub(crate) fn new(aligns: Vec<Alignment>) -> Self {
        TableBuf {
            aligns,
            rows: Vec::new(),
            header_rows: 0,
            row: Vec::new(),
        }
    }

    /// Starts a row (the header or a body row).
    pub(crate) fn start_row(&mut self) {
        self.row.clear();
    }

    /// Adds a cell to the current row.
    pub(crate) fn push_cell(&mut self, cell: Vec<Span<'static>>) {
        self.row.push(cell);
    }

    /// Ends the current row; the header's cells are made bold.
    pub(crate) fn end_row(&mut self, header: bool) {
        let mut row = std::mem::take(&mut self.row);
        if header {
            for span in row.iter_mut().flatten() {
                span.style = span.style.add_modifier(Modifier::BOLD);
            }
            self.header_rows = self.rows.len() + 1;
        }
        self.rows.push(row);
    }

    /// The table as lines of at most `width` columns when the columns can shrink that far (each
    /// column keeps at least one column of text).
    pub(crate) fn layout(self, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        let columns = self
            .rows
            .iter()
            .map(Vec::len)
            .max()
            .unwrap_or(0)
            .max(self.aligns.len());
        if columns == 0 || self.rows.is_empty() {
            return Vec::new();
        }
        let (natural, words) = self.measure(columns);
        let room = width.saturating_sub(SEPARATOR.width() * (columns - 1));
        let widths = fit_columns(&natural, &words, room);
        let mut lines = Vec::new();
        for (index, row) in self.rows.into_iter().enumerate() {
            lines.extend(row_lines(row, &widths, &self.aligns, theme));
            if index + 1 == self.header_rows {
                let rule: Vec<String> = widths.iter().map(|&w| "─".repeat(w)).collect();
                lines.push(Line::from(Span::styled(rule.join("─┼─"), theme.border)));
            }
        }
        lines
    }

    /// Each of the `columns` columns' natural width (its widest cell) and the width of its longest
    /// word, both at least 1.
    fn measure(&self, columns: usize) -> (Vec<usize>, Vec<usize>) {
        let mut natural = vec![1usize; columns];
        let mut words = vec![1usize; columns];
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate() {
                let text: String = cell.iter().map(|s| s.content.as_ref()).collect();
                natural[i] = natural[i].max(text.width());
                let longest = text
                    .split_whitespace()
                    .map(UnicodeWidthStr::width)
                    .max()
                    .unwrap_or(0);
                words[i] = words[i].max(longest);
            }
        }
        (natural, words)
    }
}

/// One row: each cell wrapped to its column's width, the cells side by side and aligned, as many
/// lines as the tallest cell needs. Missing cells are blank.
fn row_lines(
    row: Vec<Vec<Span<'static>>>,
    widths: &[usize],
    aligns: &[Alignment],
    theme: &Theme,
) -> Vec<Line<'static>> {
    let columns = widths.len();
    let mut cells: Vec<Vec<Line<'static>>> = row
        .into_iter()
        .zip(widths)
        .map(|(cell, &w)| wrap_spans(cell, w, Line::default(), Line::default()))
        .collect();
    cells.resize_with(columns, || vec![Line::default()]);
    let height = cells.iter().map(Vec::len).max().unwrap_or(1);
    let mut lines = Vec::new();
    for k in 0..height {
        let mut spans = Vec::new();
        for (i, cell) in cells.iter_mut().enumerate() {
            if i > 0 {
                spans.push(Span::styled(SEPARATOR, theme.border));
            }
            let line = cell.get_mut(k).map(std::mem::take).unwrap_or_default();
            let gap = widths[i].saturating_sub(line_width(&line));
            let last = i + 1 == columns;
            let (left, right) = match aligns.get(i).copied().unwrap_or(Alignment::None) {
                Alignment::Right => (gap, 0),
                Alignment::Center => (gap / 2, gap - gap / 2),
                Alignment::Left | Alignment::None => (0, gap),
            };
            if left > 0 {
                spans.push(Span::raw(" ".repeat(left)));
            }
            spans.extend(line.spans);
            if right > 0 && !last {
                spans.push(Span::raw(" ".repeat(right)));
            }
        }
        lines.push(Line::from(spans));
    }
    lines
}

/// Column widths fitting `room`: the natural widths when they fit; else every column gets at least
/// its longest word (when all of those fit) and the widest columns are narrowed first, to a common
/// cap; never below one column.
fn fit_columns(natural: &[usize], words: &[usize], room: usize) -> Vec<usize> {
    if natural.iter().sum::<usize>() <= room {
        return natural.to_vec();
    }
    let floors: Vec<usize> = if words
        .iter()
        .zip(natural)
        .map(|(&w, &n)| w.min(n))
        .sum::<usize>()
        <= room
    {
        words
            .iter()
            .zip(natural)
            .map(|(&w, &n)| w.min(n).max(1))
            .collect()
    } else {
        vec![1; natural.len()]
    };
    let widths = |cap: usize| -> Vec<usize> {
        natural
            .iter()
            .zip(&floors)
            .map(|(&n, &floor)| n.min(cap).max(floor))
            .collect()
    };
    let used = |cap: usize| widths(cap).iter().sum::<usize>();
    let (mut lo, mut hi) = (1usize, natural.iter().copied().max().unwrap_or(1));
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if used(mid) <= room {
            lo = mid
        } else {
            hi = mid - 1
        }
    }
    let mut out = widths(lo);
    let mut left = room.saturating_sub(used(lo));
    for (w, &n) in out.iter_mut().zip(natural) {
        if left == 0 {
            break;
        }
        if n > *w {
            *w += 1;
            left -= 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::fit_columns;

    #[test]
    fn columns_shrink_widest_first() {
        let no_words = [1, 1, 1];
        assert_eq!(fit_columns(&[3, 10, 20], &no_words, 40), vec![3, 10, 20]);
        assert_eq!(fit_columns(&[3, 10, 20], &no_words, 23), vec![3, 10, 10]);
        assert_eq!(fit_columns(&[3, 10, 20], &no_words, 24), vec![3, 10, 11]);
        assert_eq!(fit_columns(&[3, 30, 20], &no_words, 25), vec![3, 11, 11]);
        assert_eq!(fit_columns(&[5, 5], &[1, 1], 1), vec![1, 1]);
        // Longest words are kept whole while they fit.
        assert_eq!(fit_columns(&[14, 7, 64], &[14, 7, 7], 30), vec![14, 7, 9]);
        assert_eq!(fit_columns(&[14, 7, 64], &[14, 7, 7], 20), vec![7, 7, 6]);
    }
}
