//! The blocks that put a prefix before each line inside them (block quotes and list items), and the
//! prefixes they make.

use ratatui::style::Style;
use ratatui::text::Span;

/// A block that contributes a prefix to every line inside it.
pub(crate) enum Container {
    /// `started` once a line inside was shown: a blank line owed before the quote is outside it.
    Quote { started: bool },
    /// A list: the next number (ordered lists), whether blank lines separate its items, and how
    /// many items began.
    List {
        next: Option<u64>,
        loose: bool,
        items: usize,
    },
    /// A list item: its marker (`• `, `3. `, `[x] `), the marker's width, and whether it was shown.
    Item {
        marker: Vec<Span<'static>>,
        width: usize,
        used: bool,
    },
}

/// The prefix of the next line: list markers not shown yet are shown (and used up); quotes show a
/// bar in `quote` style.
pub(crate) fn take_prefix(containers: &mut [Container], quote: Style) -> Vec<Span<'static>> {
    let mut prefix = Vec::new();
    for container in containers {
        match container {
            Container::Quote { started } => {
                *started = true;
                prefix.push(Span::styled("│ ", quote));
            }
            Container::List { .. } => {}
            Container::Item {
                marker,
                width,
                used,
            } => {
                if *used {
                    prefix.push(Span::raw(" ".repeat(*width)));
                } else {
                    *used = true;
                    prefix.extend(marker.iter().cloned());
                }
            }
        }
    }
    prefix
}

/// The prefix of continuation lines.
pub(crate) fn rest_prefix(containers: &[Container], quote: Style) -> Vec<Span<'static>> {
    containers
        .iter()
        .filter_map(|container| match container {
            Container::Quote { .. } => Some(Span::styled("│ ", quote)),
            Container::List { .. } => None,
            Container::Item { width, .. } => Some(Span::raw(" ".repeat(*width))),
        })
        .collect()
}

/// The prefix of a blank line between blocks: the bars of quotes already shown, no trailing spaces.
pub(crate) fn blank_prefix(containers: &[Container], quote: Style) -> Vec<Span<'static>> {
    let mut prefix: Vec<Span<'static>> = containers
        .iter()
        .filter_map(|container| match container {
            Container::Quote { started: true } => Some(Span::styled("│", quote)),
            Container::Item { width, .. } => Some(Span::raw(" ".repeat(*width))),
            _ => None,
        })
        .collect();
    while prefix.last().is_some_and(|s| s.content.trim().is_empty()) {
        prefix.pop();
    }
    prefix
}
