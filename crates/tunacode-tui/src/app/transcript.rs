//! The transcript: one [`Cell`] per thing that happened (a user message, an answer, reasoning, a tool
//! call, a notice, a shell command, command output). Each cell renders to lines for a width and caches
//! them, so a frame only renders what changed; the view takes the lines that fit, pinned to the bottom
//! unless the user scrolled up.

use std::time::Instant;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;
use tunacode_protocol::{NoticeLevel, ToolStatus};

use crate::render::{StreamingMarkdown, render_diff, wrap_spans};
use crate::theme::Theme;

/// Lines of a tool result shown while collapsed.
const PREVIEW_LINES: usize = 4;

/// A tool call as the transcript shows it.
#[derive(Debug, Clone)]
pub struct ToolCell {
    /// The call id.
    pub id: String,
    /// The tool.
    pub name: String,
    /// Its arguments.
    pub args: Value,
    /// `None` while running.
    pub status: Option<ToolStatus>,
    /// When it started.
    pub started: Instant,
    /// How long it ran.
    pub duration_ms: Option<u64>,
    /// What it returned.
    pub result: String,
    /// The diff of a file change.
    pub diff: Option<String>,
}

/// What a cell holds.
#[derive(Debug)]
pub enum CellKind {
    /// The user's message.
    User(String),
    /// An answer, rendered as markdown while it streams.
    Assistant(StreamingMarkdown),
    /// Reasoning (shown when `/thoughts` is on).
    Thinking(String),
    /// A tool call.
    Tool(ToolCell),
    /// A notice from the engine.
    Notice(NoticeLevel, String),
    /// Output of a `/` command or other information.
    Info(String),
    /// A `!` shell command and its output (kept out of the model's context).
    Shell {
        /// The command line.
        command: String,
        /// Its output (so far, while it runs).
        output: String,
        /// When it started, while it runs.
        running: Option<Instant>,
    },
    /// An error.
    Error(String),
}

/// One entry of the transcript with its rendering cache.
#[derive(Debug)]
pub struct Cell {
    /// What it holds.
    pub kind: CellKind,
    /// Width, theme, expanded flag, content version (source length of an answer) and the lines.
    cache: Option<(u16, &'static str, bool, usize, Vec<Line<'static>>)>,
}

/// Flags that change how cells render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ViewFlags {
    /// Show reasoning.
    pub show_thoughts: bool,
    /// Show tool results whole.
    pub expand_tools: bool,
    /// Spinner frame for running tools.
    pub frame: usize,
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

    /// The cell's lines at `width` (cached).
    pub fn lines(&mut self, width: u16, theme: &Theme, flags: ViewFlags) -> &[Line<'static>] {
        let version = match &self.kind {
            CellKind::Assistant(md) => md.source().len(),
            CellKind::Thinking(_) => usize::from(flags.show_thoughts),
            _ => 0,
        };
        let fresh = matches!(&self.cache, Some((w, t, e, v, _)) if *w == width && *t == theme.name && *e == flags.expand_tools && *v == version)
            && !self.animated();
        if !fresh {
            let lines = self.render(width, theme, flags);
            self.cache = Some((width, theme.name, flags.expand_tools, version, lines));
        }
        match &self.cache {
            Some((_, _, _, _, lines)) => lines,
            None => &[],
        }
    }

    fn render(&mut self, width: u16, theme: &Theme, flags: ViewFlags) -> Vec<Line<'static>> {
        let w = width as usize;
        let mut out = match &mut self.kind {
            CellKind::User(text) => prefixed(text, w, theme.user, Span::styled("› ", theme.accent)),
            CellKind::Assistant(md) => md
                .lines(width.saturating_sub(2), theme)
                .iter()
                .cloned()
                .map(indent)
                .collect(),
            CellKind::Thinking(text) if flags.show_thoughts => prefixed(
                text.trim(),
                w,
                theme.thinking,
                Span::styled("∴ ", theme.thinking),
            ),
            CellKind::Thinking(_) => return Vec::new(),
            CellKind::Tool(tool) => render_tool(tool, w, theme, flags),
            CellKind::Notice(level, text) => {
                let style = match level {
                    NoticeLevel::Info => theme.muted,
                    NoticeLevel::Warning => theme.warning,
                };
                prefixed(text, w, style, Span::styled("! ", style))
            }
            CellKind::Info(text) => prefixed(text, w, theme.text, Span::raw("  ")),
            CellKind::Shell {
                command,
                output,
                running,
            } => render_shell(command, output, *running, w, theme, flags),
            CellKind::Error(text) => {
                prefixed(text, w, theme.error, Span::styled("✗ ", theme.error))
            }
        };
        out.push(Line::default());
        out
    }
}

/// A `!` command: while it runs, a spinner and its time, and the last lines of what it printed.
fn render_shell(
    command: &str,
    output: &str,
    running: Option<Instant>,
    w: usize,
    theme: &Theme,
    flags: ViewFlags,
) -> Vec<Line<'static>> {
    let mut lines = prefixed(command, w, theme.accent, Span::styled("! ", theme.accent));
    let Some(started) = running else {
        lines.extend(prefixed(output.trim_end(), w, theme.muted, Span::raw("  ")));
        return lines;
    };
    let spinner = crate::app::status::SPINNER[flags.frame % 10];
    let all: Vec<&str> = output.lines().collect();
    let tail = all[all.len().saturating_sub(PREVIEW_LINES)..].join("\n");
    lines.extend(prefixed(&tail, w, theme.muted, Span::raw("  ")));
    lines.push(Line::styled(
        format!(
            "  {spinner} running {:.1}s (Esc stops it)",
            started.elapsed().as_secs_f64()
        ),
        theme.muted,
    ));
    lines
}

fn indent(line: Line<'static>) -> Line<'static> {
    let mut spans = vec![Span::raw("  ")];
    spans.extend(line.spans);
    Line::from(spans).style(line.style)
}

/// Text wrapped to `width` with `first` before the first line and matching spaces before the rest.
fn prefixed(text: &str, width: usize, style: Style, first: Span<'static>) -> Vec<Line<'static>> {
    let rest = Span::raw(" ".repeat(unicode_width::UnicodeWidthStr::width(
        first.content.as_ref(),
    )));
    let mut out = Vec::new();
    for (i, para) in text.split('\n').enumerate() {
        let lead = if i == 0 { first.clone() } else { rest.clone() };
        out.extend(wrap_spans(
            vec![Span::styled(para.to_string(), style)],
            width,
            lead,
            rest.clone(),
        ));
    }
    out
}

/// The argument worth showing for a call (a path, a command, a pattern).
pub fn key_argument(args: &Value) -> String {
    [
        "file_path",
        "command",
        "pattern",
        "directory",
        "path",
        "plan",
        "action",
    ]
    .iter()
    .find_map(|k| args.get(*k).and_then(Value::as_str))
    .map(|s| s.lines().next().unwrap_or("").to_string())
    .unwrap_or_default()
}

fn render_tool(
    tool: &ToolCell,
    width: usize,
    theme: &Theme,
    flags: ViewFlags,
) -> Vec<Line<'static>> {
    let mut lines = vec![tool_header(tool, width, theme, flags)];
    if tool.status.is_none() {
        // A running command's output so far: its last lines, as they come.
        let all: Vec<&str> = tool.result.lines().collect();
        let tail = &all[all.len().saturating_sub(PREVIEW_LINES)..];
        lines.extend(
            tail.iter()
                .map(|l| result_line(l, width, theme, theme.muted)),
        );
        return lines;
    }
    if let Some(diff) = tool.diff.as_deref().filter(|d| !d.trim().is_empty()) {
        lines.extend(diff_lines(diff, width, theme, flags));
        return lines;
    }
    let result_style = if tool.status == Some(ToolStatus::Completed) {
        theme.muted
    } else {
        theme.error
    };
    let all: Vec<&str> = tool.result.lines().collect();
    let show = if flags.expand_tools {
        all.len()
    } else {
        all.len().min(PREVIEW_LINES)
    };
    lines.extend(
        all[..show]
            .iter()
            .map(|l| result_line(l, width, theme, result_style)),
    );
    if all.len() > show {
        lines.push(Line::styled(
            format!("  │ … {} more lines (Ctrl+O expands)", all.len() - show),
            theme.muted,
        ));
    }
    lines
}

/// The call's first line: its mark, name, key argument (cut to fit) and time.
fn tool_header(tool: &ToolCell, width: usize, theme: &Theme, flags: ViewFlags) -> Line<'static> {
    let (mark, style) = match tool.status {
        None => (crate::app::status::SPINNER[flags.frame % 10], theme.accent),
        Some(ToolStatus::Completed) => ("✓", theme.success),
        Some(ToolStatus::Failed) => ("✗", theme.error),
        Some(ToolStatus::Cancelled) => ("⊘", theme.warning),
    };
    let mut arg = key_argument(&tool.args);
    if tool.name == "run_command"
        && let Some(args) = tool.args.get("args").and_then(Value::as_array)
    {
        for a in args.iter().filter_map(Value::as_str) {
            arg.push(' ');
            arg.push_str(a);
        }
    }
    let time = match tool.duration_ms {
        Some(ms) if ms >= 1000 => format!(" {:.1}s", ms as f64 / 1000.0),
        Some(ms) => format!(" {ms}ms"),
        None => format!(" {:.1}s", tool.started.elapsed().as_secs_f64()),
    };
    let budget = width.saturating_sub(tool.name.len() + time.len() + 6);
    let arg: String = if arg.chars().count() > budget {
        format!(
            "{}…",
            arg.chars()
                .take(budget.saturating_sub(1))
                .collect::<String>()
        )
    } else {
        arg
    };
    Line::from(vec![
        Span::styled(format!("{mark} "), style),
        Span::styled(
            tool.name.clone(),
            theme.text.add_modifier(ratatui::style::Modifier::BOLD),
        ),
        Span::raw(" "),
        Span::styled(arg, theme.text),
        Span::styled(time, theme.muted),
    ])
}

/// A file change's diff, indented, cut to 24 lines unless expanded.
fn diff_lines(diff: &str, width: usize, theme: &Theme, flags: ViewFlags) -> Vec<Line<'static>> {
    let rendered = render_diff(diff, theme, width.saturating_sub(2) as u16);
    let show = if flags.expand_tools {
        rendered.len()
    } else {
        rendered.len().min(24)
    };
    let hidden = rendered.len() - show;
    let mut lines: Vec<Line<'static>> = rendered.into_iter().take(show).map(indent).collect();
    if hidden > 0 {
        lines.push(Line::styled(
            format!("    … {hidden} more diff lines (Ctrl+O expands)"),
            theme.muted,
        ));
    }
    lines
}

/// One line of a call's output under its header, clipped to the width.
fn result_line(line: &str, width: usize, theme: &Theme, style: Style) -> Line<'static> {
    let clipped: String = line.chars().take(width.saturating_sub(4)).collect();
    Line::from(vec![
        Span::styled("  │ ", theme.border),
        Span::styled(clipped, style),
    ])
}

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
