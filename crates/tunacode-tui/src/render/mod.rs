//! Rendering to styled lines: markdown (whole or streaming), syntax-highlighted code, unified diffs
//! and word wrapping. Pure functions over a [`Theme`](crate::theme::Theme); no terminal I/O.

mod code_cache;
pub mod code_highlights;
mod container;
pub mod diff;
pub mod highlight;
pub mod markdown;
pub mod streaming;
mod table;
pub mod wrap;

#[cfg(test)]
mod diff_tests;
#[cfg(test)]
mod markdown_tests;
#[cfg(test)]
mod wrap_tests;

pub use diff::{diff_stats, render_diff};
pub use highlight::{Highlighter, LineHighlighter, highlight_code};
pub use markdown::render_markdown;
pub use streaming::StreamingMarkdown;
pub use wrap::{line_width, truncate_line, wrap_spans};

use ratatui::text::Line;

/// The plain text of `lines`: one text line per line, trailing spaces trimmed (for snapshots and
/// copying).
pub fn lines_to_text(lines: &[Line<'_>]) -> String {
    let mut text = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        let start = text.len();
        for span in &line.spans {
            text.push_str(&span.content);
        }
        let end = start + text[start..].trim_end().len();
        text.truncate(end);
    }
    text
}
