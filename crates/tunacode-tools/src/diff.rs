//! Unified diffs of file changes.

use similar::TextDiff;

/// A unified diff (3 lines of context) from `old` to `new`, with the given `---`/`+++` headers.
pub(crate) fn unified_diff(old: &str, new: &str, old_header: &str, new_header: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(old_header, new_header)
        .to_string()
}

/// How many lines were added and removed going from `old` to `new`.
pub(crate) fn line_counts(old: &str, new: &str) -> (usize, usize) {
    let diff = TextDiff::from_lines(old, new);
    let mut added = 0;
    let mut removed = 0;
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => added += 1,
            similar::ChangeTag::Delete => removed += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    (added, removed)
}
