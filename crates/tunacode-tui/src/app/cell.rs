//! [`Cell`]: one entry of the transcript and its rendering cache. A frame renders only what changed;
//! a cell far from the view keeps its height but not its lines, and a finished answer's code comes
//! plain until the highlighter has it.

use ratatui::text::Line;

use crate::app::transcript::{CellKind, RenderCtx, render_kind};
use crate::render::code_highlights::LazyCode;

/// One entry of the transcript with its rendering cache.
#[derive(Debug)]
pub struct Cell {
    /// What it holds.
    pub kind: CellKind,
    cache: Option<Rendered>,
}

/// A cell's rendering for one width, theme, expansion and content version.
#[derive(Debug)]
struct Rendered {
    key: (u16, &'static str, bool, usize),
    rows: usize,
    /// Dropped while the cell is far from the view (the row count stays).
    lines: Option<Vec<Line<'static>>>,
    /// Code blocks shown plain until the highlighter has them.
    code: CodeWait,
}

/// Whether a finished answer's code blocks are still plain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CodeWait {
    /// Every block is highlighted (or has nothing to highlight).
    Done,
    /// Some blocks are plain and not asked for (the cell was only measured).
    Plain,
    /// Some blocks are plain and the highlighter was asked for them.
    Asked,
}

impl Cell {
    /// A new cell.
    pub fn new(kind: CellKind) -> Self {
        Cell { kind, cache: None }
    }

    /// Marks the cell as changed.
    pub fn touch(&mut self) {
        self.cache = None;
    }

    /// Whether the cell changes with the spinner (a running tool).
    fn animated(&self) -> bool {
        matches!(&self.kind, CellKind::Tool(t) if t.status.is_none())
            || matches!(
                &self.kind,
                CellKind::Shell {
                    running: Some(_),
                    ..
                }
            )
    }

    /// What the cache must match to be used.
    fn key(&self, ctx: &RenderCtx<'_>) -> (u16, &'static str, bool, usize) {
        let version = match &self.kind {
            CellKind::Assistant(md) => md.source().len() * 2 + usize::from(md.is_finished()),
            CellKind::Thinking(_) => usize::from(ctx.flags.show_thoughts),
            _ => 0,
        };
        (ctx.width, ctx.theme.name, ctx.flags.expand_tools, version)
    }

    /// The cache, rendered again when stale (or when its lines were dropped and `lines` wants them).
    fn rendered(&mut self, ctx: &RenderCtx<'_>, lines: bool, ask: bool) -> &mut Rendered {
        let key = self.key(ctx);
        let animated = self.animated();
        let fresh = self.cache.take().filter(|r| {
            let missing_lines = lines && r.lines.is_none();
            let unasked = ask && r.code == CodeWait::Plain;
            r.key == key && !animated && !missing_lines && !unasked
        });
        let rendered = match fresh {
            Some(r) => r,
            None => {
                let mut code = match ask {
                    true => LazyCode::requesting(ctx.code),
                    false => LazyCode::reading(ctx.code),
                };
                let lines = self.render(ctx, &mut code);
                let code = match (code.pending, ask) {
                    (false, _) => CodeWait::Done,
                    (true, false) => CodeWait::Plain,
                    (true, true) => CodeWait::Asked,
                };
                let rows = lines.len();
                Rendered {
                    key,
                    rows,
                    lines: Some(lines),
                    code,
                }
            }
        };
        self.cache.insert(rendered)
    }

    /// The cell's height in rows at `ctx` (rendered when not known; nothing is asked highlighted).
    pub fn rows(&mut self, ctx: &RenderCtx<'_>) -> usize {
        self.rendered(ctx, false, false).rows
    }

    /// The cell's lines at `ctx`, for showing: plain code blocks are asked highlighted.
    pub fn lines(&mut self, ctx: &RenderCtx<'_>) -> &[Line<'static>] {
        self.rendered(ctx, true, true)
            .lines
            .as_deref()
            .unwrap_or_default()
    }

    /// Drops the rendered lines (the cell is far from the view), keeping its height.
    pub fn forget_lines(&mut self) {
        if let Some(r) = &mut self.cache {
            r.lines = None;
        }
    }

    /// The width the cell was last rendered at, and whether it holds its lines.
    #[cfg(test)]
    pub(crate) fn rendered_state(&self) -> Option<(u16, bool)> {
        self.cache.as_ref().map(|r| (r.key.0, r.lines.is_some()))
    }

    /// Highlighted code arrived: a cell that asked for some renders again.
    pub fn code_arrived(&mut self) {
        if self
            .cache
            .as_ref()
            .is_some_and(|r| r.code == CodeWait::Asked)
        {
            self.cache = None;
        }
    }

    fn render(&mut self, ctx: &RenderCtx<'_>, code: &mut LazyCode<'_>) -> Vec<Line<'static>> {
        render_kind(&mut self.kind, ctx, code)
    }
}
