//! [`Transcript`]: every cell of the conversation, oldest first, and the view over them: where the
//! user scrolled to, what is open (an answer still streaming, a tool or a `!` command still running),
//! and which lines of the cells fit the screen.
//!
//! A frame renders only what it needs: cells are measured from the newest back until the view is
//! covered, only the cells on screen keep their lines (the others keep their height), and code in
//! finished answers is highlighted off the event loop once a cell showing it is on screen. Opening
//! a session of fifty thousand lines draws its newest screen without rendering the rest.

use ratatui::text::Line;

use crate::app::cell::Cell;
use crate::app::transcript::{CellKind, RenderCtx, ViewFlags};
use crate::render::StreamingMarkdown;
use crate::render::code_highlights::CodeHighlights;
use crate::theme::Theme;

/// All cells, and the view over them.
#[derive(Debug, Default)]
pub struct Transcript {
    /// The cells, oldest first.
    pub cells: Vec<Cell>,
    /// Lines scrolled up from the bottom (0: pinned to the newest line).
    pub scroll_back: usize,
    /// Scrolled up: the top cell of the last view and its rows to the end, so rows added below it
    /// move `scroll_back` and the view stays put.
    pin: Option<(usize, usize)>,
    /// The transcript's rows, when the last frame measured every cell (`scroll_back` is kept below;
    /// a frame clamps it exactly).
    max_back: Option<usize>,
    /// Rows of the transcript area at the last draw, the marker row included (set by the view); a
    /// page is measured against it.
    pub viewport_height: u16,
    /// Highlighted code of finished answers, and the worker that highlights it.
    pub code: CodeHighlights,
}

impl Transcript {
    /// Adds a cell. An answer before it is finished: no more text comes to it.
    pub fn push(&mut self, kind: CellKind) {
        if let Some(Cell {
            kind: CellKind::Assistant(md),
            ..
        }) = self.cells.last_mut()
        {
            md.finish_into(&self.code);
        }
        self.cells.push(Cell::new(kind));
    }

    /// Highlighted code arrived: the cells that asked for some render again.
    pub fn code_arrived(&mut self) {
        for cell in &mut self.cells {
            cell.code_arrived();
        }
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
        self.pin = None;
        self.max_back = None;
    }

    /// Scrolls by `delta` lines (positive: back in time).
    pub fn scroll(&mut self, delta: isize) {
        let max = self.max_back.unwrap_or(usize::MAX / 2);
        self.scroll_back = self.scroll_back.saturating_add_signed(delta).min(max);
    }

    /// Lines one PgUp/PgDn moves: the transcript area's height less 2 lines of overlap, at least 1.
    pub fn page(&self) -> usize {
        (self.viewport_height as usize).saturating_sub(2).max(1)
    }

    /// Scrolls by `pages` pages (positive: back in time).
    pub fn scroll_pages(&mut self, pages: isize) {
        self.scroll(pages * self.page() as isize);
    }

    /// Scrolls to the oldest line (the next frame clamps it to where that is).
    pub fn scroll_to_top(&mut self) {
        self.scroll_back = self.max_back.unwrap_or(usize::MAX / 2);
    }

    /// Pins the view to the newest line.
    pub fn scroll_to_bottom(&mut self) {
        self.scroll_back = 0;
    }

    /// The lines visible in a view `height` lines tall. When scrolled up, new lines do not move the
    /// view. Cells above the view are not rendered; only the cells on screen keep their lines.
    pub fn visible(
        &mut self,
        width: u16,
        height: u16,
        theme: &Theme,
        flags: ViewFlags,
    ) -> Vec<Line<'static>> {
        let ctx = RenderCtx {
            width,
            theme,
            flags,
            code: &self.code,
        };
        self.code.begin_frame();
        let (cells, h) = (&mut self.cells, height as usize);
        // `below`: the rows of `cells[first..]`, measured from the newest cell back.
        let (mut first, mut below) = (cells.len(), 0);
        if self.scroll_back > 0
            && let Some((pin, rows)) = self.pin.filter(|(pin, _)| *pin < cells.len())
        {
            while first > pin {
                first -= 1;
                below += cells[first].rows(&ctx);
            }
            self.scroll_back += below.saturating_sub(rows);
        }
        while first > 0 && below < self.scroll_back + h {
            first -= 1;
            below += cells[first].rows(&ctx);
            // Below the view (Home measures every cell): no lines kept, so memory stays flat.
            if below <= self.scroll_back {
                cells[first].forget_lines();
            }
        }
        self.max_back = (first == 0).then_some(below);
        self.scroll_back = self.scroll_back.min(below.saturating_sub(h));
        let end = below - self.scroll_back;
        let start = end.saturating_sub(h);
        let mut out = Vec::with_capacity(end - start);
        let (mut offset, mut top) = (0, None);
        for (index, cell) in cells.iter_mut().enumerate() {
            let cell_start = offset;
            if index >= first {
                offset += cell.rows(&ctx);
            }
            if index < first || offset <= start || cell_start >= end {
                cell.forget_lines();
                continue;
            }
            top.get_or_insert((index, below - cell_start));
            let lines = cell.lines(&ctx);
            let to = (end - cell_start).min(lines.len());
            let from = start.saturating_sub(cell_start).min(to);
            out.extend(lines[from..to].iter().cloned());
        }
        self.pin = top.filter(|_| self.scroll_back > 0);
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
