//! What the dialogs share: the popup frame (as tall as its content, the choices kept visible), the
//! options, and a one-line text field for notes and feedback.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::setup::wrap::wrap;
use crate::theme::Theme;

/// The popup's width for `area`: the screen less a margin, at most 110 columns.
pub(super) fn popup_width(area: Rect) -> u16 {
    area.width
        .saturating_sub(4)
        .min(110)
        .max(20.min(area.width))
}

/// How far a dialog's body is scrolled, kept within what the last frame could show (so PgDn past
/// the end is undone by one PgUp, not by as many as were pressed).
#[derive(Debug, Default)]
pub(super) struct Scroll {
    offset: u16,
    max: std::cell::Cell<u16>,
}

impl Scroll {
    /// Scrolls down by `rows`, no further than the last row.
    pub(super) fn down(&mut self, rows: u16) {
        self.offset = self.offset.saturating_add(rows).min(self.max.get());
    }

    /// Scrolls up by `rows`.
    pub(super) fn up(&mut self, rows: u16) {
        self.offset = self.offset.saturating_sub(rows);
    }

    /// The offset.
    pub(super) fn offset(&self) -> u16 {
        self.offset
    }
}

/// Draws `lines` (the body) then `choices` in a bordered popup titled `title`, scrolled by
/// `scrolled`; when the content is taller than the popup and not scrolled, the body is cut so the
/// choices stay visible.
pub(super) fn draw_popup(
    frame: &mut Frame,
    area: Rect,
    title: &str,
    mut lines: Vec<Line<'static>>,
    choices: Vec<Line<'static>>,
    scrolled: &Scroll,
    theme: &Theme,
) {
    let scroll = scrolled.offset();
    let width = popup_width(area);
    let inner_width = width.saturating_sub(2).max(1) as usize;
    let choice_rows = rows_of(&choices, inner_width);
    let rows = rows_of(&lines, inner_width) + choice_rows;
    let height = (rows as u16 + 2).clamp(5.min(area.height), area.height.max(3));
    let popup = Rect {
        x: area.x + (area.width.saturating_sub(width)) / 2,
        y: area.y + (area.height.saturating_sub(height)) / 2,
        width,
        height,
    };
    frame.render_widget(Clear, popup);
    let inner_height = popup.height.saturating_sub(2) as usize;
    if rows > inner_height && scroll == 0 {
        let budget = inner_height.saturating_sub(choice_rows + 1);
        cut_body(&mut lines, budget, inner_width, theme);
    }
    lines.extend(choices);
    // Scrolled no further than the last row.
    let max = u16::try_from(rows.saturating_sub(inner_height)).unwrap_or(u16::MAX);
    scrolled.max.set(max);
    let scroll = scroll.min(max);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.accent)
        .title(Span::styled(title.to_string(), theme.accent));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0)),
        popup,
    );
}

/// The rows `lines` take wrapped to `inner_width` columns (an empty line takes one).
fn rows_of(lines: &[Line], inner_width: usize) -> usize {
    lines
        .iter()
        .map(|l| l.width().div_ceil(inner_width).max(1))
        .sum()
}

/// Keeps the whole lines of the body that fit in `budget` rows, then a marker saying it scrolls.
fn cut_body(lines: &mut Vec<Line<'static>>, mut budget: usize, inner_width: usize, theme: &Theme) {
    let kept = lines
        .iter()
        .take_while(|l| {
            let r = rows_of(std::slice::from_ref(l), inner_width);
            let fits = r <= budget;
            budget = budget.saturating_sub(r);
            fits
        })
        .count();
    lines.truncate(kept);
    lines.push(Line::styled("  … (PgDn scrolls)", theme.muted));
}

/// The options as numbered lines (` 1. Continue `), the selected one highlighted.
pub(super) fn numbered_choices<S: AsRef<str>>(
    options: &[S],
    selected: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    options
        .iter()
        .enumerate()
        .map(|(i, option)| {
            let style = if i == selected {
                theme.selected
            } else {
                theme.text
            };
            Line::styled(format!(" {}. {} ", i + 1, option.as_ref()), style)
        })
        .collect()
}

/// The options with their keys, the selected one highlighted: one row when they fit in `width`
/// columns, otherwise one line per option so none is split across rows.
pub(super) fn option_lines(
    options: &[String],
    selected: usize,
    theme: &Theme,
    keys: &[&str],
    width: u16,
) -> Vec<Line<'static>> {
    let style = |i: usize| {
        if i == selected {
            theme.selected
        } else {
            theme.text
        }
    };
    let spans: Vec<Span<'static>> = options
        .iter()
        .enumerate()
        .map(|(i, option)| Span::styled(format!(" [{}] {option} ", keys[i]), style(i)))
        .collect();
    let row_width: usize = spans.iter().map(|s| s.width() + 2).sum();
    if row_width <= width as usize {
        let mut row = Vec::new();
        for span in spans {
            row.push(span);
            row.push(Span::raw("  "));
        }
        return vec![Line::from(row)];
    }
    options
        .iter()
        .enumerate()
        .flat_map(|(i, option)| stacked_option(keys[i], option, style(i), width))
        .collect()
}

/// One option on lines of its own: a text too long for a row goes on below its first word, not
/// under the key.
fn stacked_option(key: &str, option: &str, style: Style, width: u16) -> Vec<Line<'static>> {
    let prefix = format!(" [{key}] ");
    let indent = " ".repeat(prefix.len());
    let room = width.saturating_sub(prefix.len() as u16 + 1).max(8);
    wrap(option, room)
        .into_iter()
        .enumerate()
        .map(|(row, text)| {
            let lead = if row == 0 { &prefix } else { &indent };
            Line::from(Span::styled(format!("{lead}{text} "), style))
        })
        .collect()
}

/// A text field's line: a label, the text, a cursor.
pub(super) fn field_line(label: &str, text: &str, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(label.to_string(), theme.muted),
        Span::styled(text.to_string(), theme.text),
        Span::styled("▏", theme.accent),
    ])
}

/// What a key did to a one-line text field.
pub(super) enum LineEdit {
    Editing,
    Submit,
    Cancel,
}

/// A one-line text field.
pub(super) fn edit_line(text: &mut String, key: KeyEvent) -> LineEdit {
    match key.code {
        KeyCode::Enter => LineEdit::Submit,
        KeyCode::Esc => LineEdit::Cancel,
        KeyCode::Backspace => {
            text.pop();
            LineEdit::Editing
        }
        KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
            text.push(c);
            LineEdit::Editing
        }
        _ => LineEdit::Editing,
    }
}
