//! Drawing a frame: transcript, todo panel, completion popup, input, status line, and whatever dialog,
//! picker or setup screen is open. Drawing reads the state; it changes nothing but render caches.

use std::time::Instant;

use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::app::state::{App, Screen};

/// Most lines the input grows to.
const MAX_INPUT_LINES: u16 = 8;

impl App {
    /// Draws the whole screen.
    pub fn draw(&mut self, frame: &mut Frame) {
        let area = frame.area();
        if let Screen::Setup(screen) = &self.screen {
            screen.render(frame, area, &self.view.theme);
            return;
        }
        let input_lines = (self.input.editor.lines().len() as u16).clamp(1, MAX_INPUT_LINES);
        let todo_height = if self.view.todos.is_empty() {
            0
        } else {
            (self.view.todos.len() as u16).min(6) + 1
        };
        let chunks = Layout::default()
            .direction(Direction::Vertical)
            .constraints([
                Constraint::Min(3),
                Constraint::Length(todo_height),
                Constraint::Length(input_lines + 2),
                Constraint::Length(1),
            ])
            .split(area);
        let (main, todo_area, input_area, status_area) =
            (chunks[0], chunks[1], chunks[2], chunks[3]);

        self.view.draw_transcript(frame, main);

        if todo_height > 0 {
            self.view.draw_todos(frame, todo_area);
        }

        // A question replaces the input box, as the composer gives way to an approval in codex: the
        // keys go to the question, and its popup gets the rows down to the status line.
        if self.overlays.dialog.is_none() {
            self.draw_input(frame, main, input_area);
        }

        frame.render_widget(
            Paragraph::new(self.view.status.line(
                status_area.width,
                &self.view.theme,
                Instant::now(),
            )),
            status_area,
        );

        self.overlays
            .render(frame, area, status_area, &self.view.theme);
    }

    /// The input box with its hint or queue count, and the completion popup above it.
    fn draw_input(&self, frame: &mut Frame, main: Rect, input_area: Rect) {
        let title = match (&self.input.hint, self.mirror.queued) {
            (Some(h), _) => format!(" {h} "),
            (None, n) if n > 0 => format!(" {n} queued "),
            _ => String::new(),
        };
        let block = Block::default()
            .borders(Borders::TOP | Borders::BOTTOM)
            .border_style(if self.busy() {
                self.view.theme.border
            } else {
                self.view.theme.accent
            })
            .title(Span::styled(title, self.view.theme.warning));
        let inner = block.inner(input_area);
        frame.render_widget(block, input_area);
        let marker = Rect {
            width: 2.min(inner.width),
            ..inner
        };
        frame.render_widget(
            Paragraph::new(Span::styled("› ", self.view.theme.accent)),
            marker,
        );
        let editor = Rect {
            x: inner.x + 2,
            width: inner.width.saturating_sub(2),
            ..inner
        };
        frame.render_widget(&self.input.editor, editor);

        if let Some((popup, _)) = &self.input.popup {
            let h = popup.height().min(main.height);
            let w = popup.preferred_width().clamp(20, main.width);
            let r = Rect {
                x: main.x + 2.min(main.width),
                y: input_area.y.saturating_sub(h),
                width: w.min(main.width.saturating_sub(2)),
                height: h,
            };
            frame.render_widget(Clear, r);
            popup.render(r, frame.buffer_mut(), &self.view.theme);
        }
    }
}
