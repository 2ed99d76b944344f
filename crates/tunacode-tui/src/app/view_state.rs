//! What the chat shows: the transcript, the status line, the todo panel, and how they are drawn
//! (theme, reasoning shown, tool output expanded), plus what is written to the terminal itself.

use std::collections::BTreeMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use tunacode_protocol::{TodoItem, TodoStatus, Usage};

use crate::app::status::StatusState;
use crate::app::transcript::ViewFlags;
use crate::app::transcript_view::Transcript;
use crate::theme::Theme;

/// What is shown, and how.
pub struct ViewState {
    /// Colors.
    pub theme: Theme,
    /// The conversation so far.
    pub transcript: Transcript,
    /// The status line.
    pub status: StatusState,
    /// Show reasoning.
    pub show_thoughts: bool,
    /// Show tool output whole.
    pub expand_tools: bool,
    /// The agent's todo list.
    pub todos: Vec<TodoItem>,
    /// Usage per model, for `/cost`.
    pub usage_by_model: BTreeMap<String, Usage>,
    /// The last model call's usage, for `/cost`.
    pub last_call: Usage,
    /// Escape sequences to write to the terminal after the next frame (OSC 52 copy).
    pub pending_output: Vec<String>,
}

impl ViewState {
    /// The transcript in `main`, scrolled; when scrolled up, its bottom row says how many lines are
    /// below.
    pub fn draw_transcript(&mut self, frame: &mut Frame, main: Rect) {
        let flags = ViewFlags {
            show_thoughts: self.show_thoughts,
            expand_tools: self.expand_tools,
            frame: self.status.frame,
        };
        // PgUp/PgDn page by this height.
        self.transcript.viewport_height = main.height;
        // Scrolled up, the bottom row of the transcript area belongs to the "more lines" marker, so the
        // marker never covers transcript text.
        let scrolled = self.transcript.scroll_back > 0 && main.height > 1;
        let text_area = Rect {
            height: main.height - u16::from(scrolled),
            ..main
        };
        let lines = self
            .transcript
            .visible(text_area.width, text_area.height, &self.theme, flags);
        frame.render_widget(Paragraph::new(lines).style(self.theme.text), text_area);
        if scrolled && self.transcript.scroll_back > 0 {
            let note = format!(" ↓ {} more lines (End) ", self.transcript.scroll_back);
            let w = note.chars().count() as u16;
            let r = Rect {
                x: main.x + main.width.saturating_sub(w + 1),
                y: text_area.bottom(),
                width: w.min(main.width),
                height: 1,
            };
            frame.render_widget(Paragraph::new(Line::styled(note, self.theme.selected)), r);
        }
    }

    /// `/thoughts`: shows or hides reasoning (every cell is drawn again). Returns whether it is shown.
    pub fn toggle_thoughts(&mut self) -> bool {
        self.show_thoughts = !self.show_thoughts;
        for cell in &mut self.transcript.cells {
            cell.touch();
        }
        self.show_thoughts
    }

    /// A model call's usage: the session's total, and the call counted to the current model.
    pub fn record_usage(&mut self, last_call: &Usage, session_total: Usage) {
        self.status.usage = session_total;
        self.last_call = *last_call;
        self.usage_by_model
            .entry(self.status.model.clone())
            .or_default()
            .add(last_call);
    }

    /// `/cost`: usage and cost per model, then the session's total.
    pub fn cost_text(&self) -> String {
        let mut text = String::from("Usage and cost this session:\n");
        let row = |name: &str, u: &Usage| {
            format!(
                "  {name:<40} in {:>9}  out {:>8}  cached {:>8} ({:>3.0}%)  ${:.4}",
                u.request_tokens,
                u.response_tokens,
                u.cached_tokens,
                u.cache_hit_ratio() * 100.0,
                u.cost
            )
        };
        for (model, u) in &self.usage_by_model {
            text.push_str(&row(model, u));
            text.push('\n');
        }
        text.push_str(&row("total (session)", &self.status.usage));
        let last = &self.last_call;
        if last.request_tokens > 0 {
            text.push_str(&format!(
                "\n  last call: {} of {} input tokens read from the cache ({:.0}%)",
                last.cached_tokens,
                last.request_tokens,
                last.cache_hit_ratio() * 100.0
            ));
        }
        if let Some(cap) = &self.status.budget {
            text.push_str(&format!(
                "\n  budget: {:.0}% of the {} cap used (/budget for every cap)",
                cap.used() * 100.0,
                cap.scope.name()
            ));
        }
        text
    }

    /// The todo panel in `area`: a title row, then as many items as fit.
    pub fn draw_todos(&self, frame: &mut Frame, area: Rect) {
        let mut lines = vec![Line::styled("todo", self.theme.muted)];
        for t in self
            .todos
            .iter()
            .take(area.height.saturating_sub(1) as usize)
        {
            let (mark, style) = match t.status {
                TodoStatus::Pending => ("[ ]", self.theme.text),
                TodoStatus::InProgress => ("[~]", self.theme.accent),
                TodoStatus::Completed => ("[x]", self.theme.muted),
            };
            lines.push(Line::from(vec![
                Span::styled(format!(" {mark} "), style),
                Span::styled(t.content.clone(), style),
            ]));
        }
        frame.render_widget(Paragraph::new(lines), area);
    }
}
