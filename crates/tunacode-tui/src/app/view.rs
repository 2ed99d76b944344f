//! Drawing a frame: the layout of transcript, todo panel, input and status line, each part drawn by
//! the state that owns it (`ViewState`, `InputState`, `Overlays`), and whatever dialog, picker or
//! setup screen is open. Drawing reads the state; it changes nothing but render caches.

use std::time::Instant;

use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::widgets::Paragraph;

use crate::app::input_state::InputLook;
use crate::app::state::{App, Screen};

impl App {
    /// Draws the whole screen.
    pub fn draw(&mut self, frame: &mut Frame) {
        let area = frame.area();
        if let Screen::Setup(screen) = &self.screen {
            screen.render(frame, area, &self.view.theme);
            return;
        }
        let input_lines = self.input.rows();
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
            let look = InputLook {
                theme: &self.view.theme,
                queued: self.mirror.queued,
                busy: self.busy(),
            };
            self.input.render(frame, main, input_area, look);
        }

        frame.render_widget(
            Paragraph::new(self.view.status.line(
                status_area.width,
                &self.view.theme,
                Instant::now(),
            )),
            status_area,
        );

        // A picker opens over the chat, above the input box (it takes the keys while open).
        let above_input = Rect {
            height: input_area.y.saturating_sub(area.y),
            ..area
        };
        self.overlays
            .render(frame, (above_input, status_area), &self.view.theme);
    }
}
