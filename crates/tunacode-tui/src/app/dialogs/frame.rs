//! What the dialogs share: the popup frame (as tall as its content, the choices kept visible), the
//! row of options, and a one-line text field for notes and feedback.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::theme::Theme;

/// The popup's width for `area`: the screen less a margin, at most 110 columns.
pub(super) fn popup_width(area: Rect) -> u16 {
    area.width
        .saturating_sub(4)
        .min(110)
        .max(20.min(area.width))
}

/// Draws `lines` in a bordered popup titled `title`, scrolled by `scroll`; when the content is taller
/// than the popup and not scrolled, the last `keep_tail` lines (the choices) stay visible.
pub(super) fn draw_popup(
    frame: &mut Frame,
    area: Rect,
    title: &str,
    mut lines: Vec<Line<'static>>,
    scroll: u16,
    theme: &Theme,
) {
    let width = popup_width(area);
    let inner_width = width.saturating_sub(2).max(1) as usize;
    let rows: usize = lines
        .iter()
        .map(|l| l.width().div_ceil(inner_width).max(1))
        .sum();
    let height = (rows as u16 + 2).clamp(5.min(area.height), area.height.saturating_sub(2).max(3));
    let popup = Rect {
        x: area.x + (area.width.saturating_sub(width)) / 2,
        y: area.y + (area.height.saturating_sub(height)) / 2,
        width,
        height,
    };
    frame.render_widget(Clear, popup);
    let inner_height = popup.height.saturating_sub(2) as usize;
    if rows > inner_height && scroll == 0 {
        let keep_tail = 4.min(lines.len());
        let tail: Vec<Line> = lines.split_off(lines.len() - keep_tail);
        lines.truncate(inner_height.saturating_sub(keep_tail + 1));
        lines.push(Line::styled("  … (PgDn scrolls)", theme.muted));
        lines.extend(tail);
    }
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

/// A row of options with their keys, the selected one highlighted.
pub(super) fn options_line(
    options: &[String],
    selected: usize,
    theme: &Theme,
    keys: &[&str],
) -> Line<'static> {
    let mut spans = Vec::new();
    for (i, option) in options.iter().enumerate() {
        let style = if i == selected {
            theme.selected
        } else {
            theme.text
        };
        spans.push(Span::styled(format!(" [{}] {option} ", keys[i]), style));
        spans.push(Span::raw("  "));
    }
    Line::from(spans)
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
