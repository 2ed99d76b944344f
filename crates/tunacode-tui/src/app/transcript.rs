//! What the transcript holds: one [`CellKind`] per thing that happened (a user message, an answer,
//! reasoning, a tool call, a notice, a shell command, command output), and how each renders to lines
//! for a width. A [`Cell`](super::cell::Cell) caches those lines; the list of cells and the view over
//! them are [`Transcript`](super::transcript_view::Transcript).

use std::time::Instant;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;
use tunacode_protocol::{NoticeLevel, ToolStatus};

use unicode_width::UnicodeWidthStr;

use crate::render::code_highlights::{CodeHighlights, LazyCode};
use crate::render::markdown::render_markdown_lazy;
use crate::render::truncate_line;
use crate::render::wrap::expand_tabs;
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

/// What a cell renders for: the width, colors and flags, and where finished answers get their
/// highlighted code.
#[derive(Debug, Clone, Copy)]
pub struct RenderCtx<'a> {
    /// Columns.
    pub width: u16,
    /// Colors.
    pub theme: &'a Theme,
    /// Flags.
    pub flags: ViewFlags,
    /// Highlighted code blocks of finished answers.
    pub code: &'a CodeHighlights,
}

/// A cell's lines for `ctx`, its blank line after it included; finished answers take their code
/// from `code`.
pub(crate) fn render_kind(
    kind: &mut CellKind,
    ctx: &RenderCtx<'_>,
    code: &mut LazyCode<'_>,
) -> Vec<Line<'static>> {
    let (width, theme, flags) = (ctx.width, ctx.theme, ctx.flags);
    let w = width as usize;
    let mut out = match kind {
        CellKind::User(text) => prefixed(text, w, theme.user, Span::styled("› ", theme.accent)),
        CellKind::Assistant(md) if md.is_finished() => {
            render_markdown_lazy(md.source(), width.saturating_sub(2), theme, code)
                .into_iter()
                .map(indent)
                .collect()
        }
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
        CellKind::Error(text) => prefixed(text, w, theme.error, Span::styled("✗ ", theme.error)),
    };
    out.push(Line::default());
    out
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
        "description",
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
        for l in tail {
            lines.extend(result_lines(
                l,
                width,
                theme,
                theme.muted,
                flags.expand_tools,
            ));
        }
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
    for l in &all[..show] {
        lines.extend(result_lines(
            l,
            width,
            theme,
            result_style,
            flags.expand_tools,
        ));
    }
    let cut_wide = !flags.expand_tools
        && all[..show]
            .iter()
            .any(|l| expand_tabs(l).width() > width.saturating_sub(4));
    let more = match (all.len() - show, cut_wide) {
        (0, false) => None,
        (0, true) => Some("  │ … long lines cut (Ctrl+O wraps them)".to_string()),
        (1, _) => Some("  │ … 1 more line (Ctrl+O expands)".to_string()),
        (hidden, _) => Some(format!("  │ … {hidden} more lines (Ctrl+O expands)")),
    };
    lines.extend(more.map(|m| Line::styled(m, theme.muted)));
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

/// One line of a call's output under its header, its tabs expanded: wrapped to the width when the
/// calls are expanded, else cut with an ellipsis.
fn result_lines(
    line: &str,
    width: usize,
    theme: &Theme,
    style: Style,
    wrap: bool,
) -> Vec<Line<'static>> {
    let gutter = || Span::styled("  │ ", theme.border);
    let text = Span::styled(expand_tabs(line), style);
    if wrap {
        wrap_spans(vec![text], width, gutter(), gutter())
    } else {
        vec![truncate_line(Line::from(vec![gutter(), text]), width)]
    }
}
