//! [`Transcript`]: every cell of the conversation, oldest first, and the view over them: where the
//! user scrolled to, what is open (an answer still streaming, a tool or a `!` command still running),
//! and which lines of the cells fit the screen.

use ratatui::text::Line;

use crate::app::transcript::{Cell, CellKind, ViewFlags};
use crate::render::StreamingMarkdown;
use crate::theme::Theme;

/// All cells, and the view over them.
#[derive(Debug, Default)]
pub struct Transcript {
    /// The cells, oldest first.
    pub cells: Vec<Cell>,
    /// Lines scrolled up from the bottom (0: pinned to the newest line).
    pub scroll_back: usize,
    last_total: usize,
    /// Rows of the transcript area at the last draw, the marker row included (set by the view); a
    /// page is measured against it.
    pub viewport_height: u16,
}

impl Transcript {
    /// Adds a cell.
    pub fn push(&mut self, kind: CellKind) {
        self.cells.push(Cell::new(kind));
    }

    /// Adds a notice; a retry notice right after another replaces it, so a storm of retries is one
    /// line that counts up.
    pub fn push_notice(&mut self, level: tunacode_protocol::NoticeLevel, message: String) {
        let mark = tunacode_protocol::RETRY_NOTICE_MARK;
        let retry_after_retry = message.contains(mark)
            && matches!(self.cells.last().map(|c| &c.kind),
                Some(CellKind::Notice(_, previous)) if previous.contains(mark));
        if retry_after_retry {
            self.cells.pop();
        }
        self.push(CellKind::Notice(level, message));
    }

    /// The last cell, when it is an answer still receiving text.
    pub fn open_answer(&mut self) -> Option<&mut StreamingMarkdown> {
        match self.cells.last_mut().map(|c| &mut c.kind) {
            Some(CellKind::Assistant(md)) => Some(md),
            _ => None,
        }
    }

    /// The tool cell for a call id.
    pub fn tool_mut(&mut self, id: &str) -> Option<&mut Cell> {
        self.cells
            .iter_mut()
            .rev()
            .find(|c| matches!(&c.kind, CellKind::Tool(t) if t.id == id))
    }

    /// The newest `!` command cell still running `command`.
    pub fn running_shell_mut(&mut self, command: &str) -> Option<&mut Cell> {
        self.cells.iter_mut().rev().find(|c| {
            matches!(&c.kind, CellKind::Shell { command: c, running: Some(_), .. } if c == command)
        })
    }

    /// The name of the latest tool call still running, if any.
    pub fn running_tool(&self) -> Option<String> {
        self.cells.iter().rev().find_map(|c| match &c.kind {
            CellKind::Tool(t) if t.status.is_none() => Some(t.name.clone()),
            _ => None,
        })
    }

    /// Whether a `!` command is running.
    pub fn shell_running(&self) -> bool {
        self.cells.iter().any(|c| {
            matches!(
                &c.kind,
                CellKind::Shell {
                    running: Some(_),
                    ..
                }
            )
        })
    }

    /// Removes every cell.
    pub fn clear(&mut self) {
        self.cells.clear();
        self.scroll_back = 0;
        self.last_total = 0;
    }

    /// Scrolls by `delta` lines (positive: back in time).
    pub fn scroll(&mut self, delta: isize) {
        let max = self.last_total;
        self.scroll_back = (self.scroll_back as isize + delta).clamp(0, max as isize) as usize;
    }

    /// Lines one PgUp/PgDn moves: the transcript area's height less 2 lines of overlap, at least 1.
    pub fn page(&self) -> usize {
        (self.viewport_height as usize).saturating_sub(2).max(1)
    }

    /// Scrolls by `pages` pages (positive: back in time).
    pub fn scroll_pages(&mut self, pages: isize) {
        self.scroll(pages * self.page() as isize);
    }

    /// Scrolls to the oldest line.
    pub fn scroll_to_top(&mut self) {
        self.scroll_back = self.last_total;
    }

    /// Pins the view to the newest line.
    pub fn scroll_to_bottom(&mut self) {
        self.scroll_back = 0;
    }

    /// The lines visible in a view `height` lines tall. When scrolled up, new lines do not move the view.
    pub fn visible(
        &mut self,
        width: u16,
        height: u16,
        theme: &Theme,
        flags: ViewFlags,
    ) -> Vec<Line<'static>> {
        let mut per_cell: Vec<usize> = Vec::with_capacity(self.cells.len());
        for cell in &mut self.cells {
            per_cell.push(cell.lines(width, theme, flags).len());
        }
        let total: usize = per_cell.iter().sum();
        if self.scroll_back > 0 && total > self.last_total {
            self.scroll_back += total - self.last_total;
        }
        self.last_total = total;
        let max_back = total.saturating_sub(height as usize);
        self.scroll_back = self.scroll_back.min(max_back);
        let end = total - self.scroll_back;
        let start = end.saturating_sub(height as usize);
        let mut out = Vec::with_capacity(end - start);
        let mut offset = 0;
        for (cell, count) in self.cells.iter_mut().zip(per_cell) {
            let (cell_start, cell_end) = (offset, offset + count);
            offset = cell_end;
            if cell_end <= start || cell_start >= end {
                continue;
            }
            let lines = cell.lines(width, theme, flags);
            let from = start.saturating_sub(cell_start);
            let to = (end - cell_start).min(count);
            out.extend(lines[from..to].iter().cloned());
        }
        out
    }

    /// The text of the last answer (for `/copy`).
    pub fn last_answer(&self) -> Option<String> {
        self.cells.iter().rev().find_map(|c| match &c.kind {
            CellKind::Assistant(md) => Some(md.source().to_string()),
            _ => None,
        })
    }
}
