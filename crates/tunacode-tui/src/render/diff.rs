//! Unified diffs (as the tools produce them with `similar`) as styled lines with a line-number gutter:
//!
//! ```text
//! --- a/src/lib.rs
//! +++ b/src/lib.rs
//! @@ -1,3 +1,3 @@
//!  1  1 │ fn main() {
//!  2    │-    old();
//!     2 │+    new();
//!  3  3 │ }
//! ```

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::wrap::{sanitize, truncate_line};
use crate::theme::Theme;

/// One line of a diff, classified.
enum DiffLine<'a> {
    /// `---`/`+++`/`diff`/`index` lines between hunks.
    Header(&'a str),
    /// `@@ -a,b +c,d @@`.
    Hunk(&'a str),
    Context {
        old: usize,
        new: usize,
        text: &'a str,
    },
    Added {
        new: usize,
        text: &'a str,
    },
    Removed {
        old: usize,
        text: &'a str,
    },
    /// `\ No newline at end of file`, or anything else.
    Other(&'a str),
}

/// The start lines and counts of a hunk header `@@ -a,b +c,d @@` (counts default to 1).
fn parse_hunk(line: &str) -> Option<(usize, usize, usize, usize)> {
    let mut parts = line.strip_prefix("@@ ")?.split_whitespace();
    let range = |part: &str, sign: char| -> Option<(usize, usize)> {
        let part = part.strip_prefix(sign)?;
        match part.split_once(',') {
            Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
            None => Some((part.parse().ok()?, 1)),
        }
    };
    let (old, old_count) = range(parts.next()?, '-')?;
    let (new, new_count) = range(parts.next()?, '+')?;
    Some((old, old_count, new, new_count))
}

/// The lines that introduce a file's diff (outside hunks).
const FILE_HEADERS: [&str; 6] = [
    "--- ",
    "+++ ",
    "diff ",
    "index ",
    "new file",
    "deleted file",
];

/// Classifies the lines of a diff, numbering them from the hunk headers. A line counts as a header
/// only while the current hunk has no lines left, so removed lines starting `--` stay removed lines.
fn classify(diff: &str) -> Vec<DiffLine<'_>> {
    let mut out = Vec::new();
    let mut at = Numbering::default();
    for line in diff.lines() {
        let in_hunk = at.in_hunk();
        if !in_hunk && let Some((o, oc, n, nc)) = parse_hunk(line) {
            (at.old, at.old_left, at.new, at.new_left) = (o, oc, n, nc);
            at.seen_hunk = true;
            out.push(DiffLine::Hunk(line));
        } else if !in_hunk && FILE_HEADERS.iter().any(|p| line.starts_with(p)) {
            out.push(DiffLine::Header(line));
        } else {
            out.push(at.body_line(line));
        }
    }
    out
}

/// Where [`classify`] is in the diff: the next old and new line numbers, and how many lines of each
/// the current hunk still has.
#[derive(Default)]
struct Numbering {
    old: usize,
    new: usize,
    old_left: usize,
    new_left: usize,
    seen_hunk: bool,
}

impl Numbering {
    /// Whether the current hunk still has lines to come.
    fn in_hunk(&self) -> bool {
        self.old_left > 0 || self.new_left > 0
    }

    /// A line that is neither a hunk nor a file header: added, removed or context (numbered, and the
    /// numbers move on) once a hunk was seen; anything else is other.
    fn body_line<'a>(&mut self, line: &'a str) -> DiffLine<'a> {
        let in_hunk = self.in_hunk();
        match line.as_bytes().first() {
            Some(b'+') if self.seen_hunk => {
                let l = DiffLine::Added {
                    new: self.new,
                    text: line.get(1..).unwrap_or_default(),
                };
                self.new = self.new.saturating_add(1);
                self.new_left = self.new_left.saturating_sub(1);
                l
            }
            Some(b'-') if self.seen_hunk => {
                let l = DiffLine::Removed {
                    old: self.old,
                    text: line.get(1..).unwrap_or_default(),
                };
                self.old = self.old.saturating_add(1);
                self.old_left = self.old_left.saturating_sub(1);
                l
            }
            Some(b' ') | None if self.seen_hunk && in_hunk => {
                let l = DiffLine::Context {
                    old: self.old,
                    new: self.new,
                    text: line.get(1..).unwrap_or_default(),
                };
                self.old = self.old.saturating_add(1);
                self.new = self.new.saturating_add(1);
                self.old_left = self.old_left.saturating_sub(1);
                self.new_left = self.new_left.saturating_sub(1);
                l
            }
            _ => DiffLine::Other(line),
        }
    }
}

/// How many lines a unified diff adds and removes (`(added, removed)`; headers not counted).
pub fn diff_stats(diff: &str) -> (usize, usize) {
    classify(diff)
        .iter()
        .fold((0, 0), |(added, removed), line| match line {
            DiffLine::Added { .. } => (added + 1, removed),
            DiffLine::Removed { .. } => (added, removed + 1),
            _ => (added, removed),
        })
}

/// Renders a unified diff: file headers in `diff_header`, hunk headers in `diff_hunk`, added and
/// removed lines in `diff_add`/`diff_remove` after a gutter of old and new line numbers and a
/// `+`/`-` marker. Lines longer than `width` are cut with `…`; tabs become four spaces.
pub fn render_diff(diff: &str, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let lines = classify(diff);
    let largest = lines
        .iter()
        .map(|line| match line {
            DiffLine::Context { old, new, .. } => (*old).max(*new),
            DiffLine::Added { new, .. } => *new,
            DiffLine::Removed { old, .. } => *old,
            _ => 0,
        })
        .max()
        .unwrap_or(0);
    let digits = largest.max(1).to_string().len();
    let number = |n: Option<usize>| match n {
        Some(n) => format!("{n:>digits$}"),
        None => " ".repeat(digits),
    };
    let width = usize::from(width);
    lines
        .into_iter()
        .map(|line| {
            let body =
                |old: Option<usize>, new: Option<usize>, marker: &str, text: &str, style: Style| {
                    Line::from(vec![
                        Span::styled(format!("{} {} │", number(old), number(new)), theme.muted),
                        Span::styled(format!("{marker}{}", sanitize(text, false)), style),
                    ])
                };
            let line = match line {
                DiffLine::Header(text) => {
                    Line::from(Span::styled(sanitize(text, false), theme.diff_header))
                }
                DiffLine::Hunk(text) => {
                    Line::from(Span::styled(sanitize(text, false), theme.diff_hunk))
                }
                DiffLine::Context { old, new, text } => {
                    body(Some(old), Some(new), " ", text, theme.text)
                }
                DiffLine::Added { new, text } => body(None, Some(new), "+", text, theme.diff_add),
                DiffLine::Removed { old, text } => {
                    body(Some(old), None, "-", text, theme.diff_remove)
                }
                DiffLine::Other(text) => {
                    Line::from(Span::styled(sanitize(text, false), theme.muted))
                }
            };
            truncate_line(line, width)
        })
        .collect()
}
