//! The drawing pieces the setup screen and the key prompt share: a centered panel, rows of lines, and
//! a one-line field with the cursor in it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::input::LineInput;
use super::wrap::wrap;
use crate::theme::Theme;

/// What a field starts with.
pub(crate) const FIELD: &str = "› ";

/// The panel's rectangle: centered in `area`, at most `max_width` × `max_height`.
pub(crate) fn panel(area: Rect, max_width: u16, max_height: u16) -> Rect {
    let width = area.width.min(max_width);
    let height = area.height.min(max_height);
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

/// Draws `lines` from row `y` of `area`, one per row, cut to its width; returns the next free row.
pub(crate) fn put_lines(frame: &mut Frame, area: Rect, y: u16, lines: Vec<Line<'_>>) -> u16 {
    let mut y = y;
    for line in lines {
        if y >= area.bottom() {
            break;
        }
        let row = Rect::new(area.x, y, area.width, 1);
        frame.render_widget(Paragraph::new(line), row);
        y += 1;
    }
    y
}

/// A field: `prefix` (e.g. `› `) and the visible part of the text (masked for keys); sets the cursor
/// there.
pub(crate) fn put_field(
    frame: &mut Frame,
    area: Rect,
    y: u16,
    prefix: &str,
    input: &LineInput,
    masked: bool,
    theme: &Theme,
) -> u16 {
    let prefix_width = u16::try_from(prefix.width()).unwrap_or(u16::MAX);
    if y >= area.bottom() || area.width <= prefix_width + 1 {
        return y;
    }
    let (text, col) = input.view(area.width - prefix_width, masked);
    let line = Line::from(vec![
        Span::styled(prefix.to_string(), theme.accent),
        Span::styled(text, theme.text),
    ]);
    frame.render_widget(Paragraph::new(line), Rect::new(area.x, y, area.width, 1));
    frame.set_cursor_position((area.x + prefix_width + col, y));
    y + 1
}

/// Wrapped text as lines in one style.
pub(crate) fn styled_lines(text: &str, width: u16, style: Style) -> Vec<Line<'static>> {
    wrap(text, width)
        .into_iter()
        .map(|l| Line::styled(l, style))
        .collect()
}
