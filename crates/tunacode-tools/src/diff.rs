//! Unified diffs of file changes.

use std::ops::Range;

use similar::TextDiff;
use tunacode_protocol::{HunkSelection, HunkVerdict};

/// A unified diff (3 lines of context) from `old` to `new`, with the given `---`/`+++` headers.
pub fn unified_diff(old: &str, new: &str, old_header: &str, new_header: &str) -> String {
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

/// The hunks of `old` → `new` as [`unified_diff`] shows them (3 lines of context): each hunk's range of
/// old lines and of new lines.
fn hunk_ranges(diff: &TextDiff<'_, '_, '_, str>) -> Vec<(Range<usize>, Range<usize>)> {
    diff.grouped_ops(3)
        .into_iter()
        .filter(|group| !group.is_empty())
        .filter_map(|group| {
            let (first, last) = (group.first()?, group.last()?);
            Some((
                first.old_range().start..last.old_range().end,
                first.new_range().start..last.new_range().end,
            ))
        })
        .collect()
}

/// Refuses a hunk pick when the change now differs from the one the user reviewed (the file changed
/// while they looked): the indices they picked would name other hunks.
fn same_as_reviewed(now: &str, reviewed: &str) -> Result<(), crate::tool_error::ToolError> {
    if now == reviewed {
        return Ok(());
    }
    Err(crate::tool_error::ToolError::Retry(
        "the files changed while the user reviewed this edit hunk by hunk, so nothing was written; \
         read them again and make the edit again"
            .into(),
    ))
}

/// Refuses a hunk pick unless the change reads now (`now`, its diff) as the user reviewed it, and the
/// review split `reviewed` into exactly the hunks written here, hunk by hunk the same text: `changes`
/// are the files' `(old, new)` in the order the preview shows them. (A line ending the review cannot
/// see, like a lone carriage return, or a file name holding a newline, would otherwise shift which
/// hunk a number names.)
pub(crate) fn as_reviewed(
    now: &str,
    changes: &[(&str, &str)],
    reviewed: &str,
) -> Result<(), crate::tool_error::ToolError> {
    same_as_reviewed(now, reviewed)?;
    let shown = tunacode_protocol::diff_hunks(reviewed);
    let ours: Vec<String> = changes
        .iter()
        .flat_map(|(old, new)| {
            TextDiff::from_lines(*old, *new)
                .unified_diff()
                .context_radius(3)
                .iter_hunks()
                .map(|h| h.to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    if ours.len() == shown.len() && ours.iter().zip(&shown).all(|(a, b)| *a == b.text) {
        return Ok(());
    }
    Err(crate::tool_error::ToolError::Retry(
        "this edit cannot be written in part (its diff has a line break the review cannot split \
         the same way, e.g. a lone carriage return or a newline in a file name), so nothing was \
         written; make the edit without it, or ask the user to take it whole"
            .into(),
    ))
}

/// How many hunks [`unified_diff`] shows for `old` → `new`.
pub(crate) fn hunk_count(old: &str, new: &str) -> usize {
    hunk_ranges(&TextDiff::from_lines(old, new)).len()
}

/// `old` with the hunks of `old` → `new` written as `pick` says: an accepted hunk as in `new`, an
/// edited one as the user wrote it, a rejected one left as in `old`. The hunks are numbered from
/// `first` (a call changing several files numbers them across its files).
pub(crate) fn apply_picked(old: &str, new: &str, first: usize, pick: &HunkSelection) -> String {
    let diff = TextDiff::from_lines(old, new);
    let (old_lines, new_lines) = (diff.old_slices(), diff.new_slices());
    let mut out = String::with_capacity(old.len().max(new.len()));
    let mut at = 0;
    for (k, (old_range, new_range)) in hunk_ranges(&diff).into_iter().enumerate() {
        out.extend(old_lines[at..old_range.start].iter().copied());
        match pick.verdict(first + k) {
            HunkVerdict::Accepted => out.extend(new_lines[new_range].iter().copied()),
            HunkVerdict::Edited(text) => out.push_str(text),
            HunkVerdict::Rejected => out.extend(old_lines[old_range.clone()].iter().copied()),
        }
        at = old_range.end;
    }
    out.extend(old_lines[at..].iter().copied());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tunacode_protocol::{EditedHunk, diff_hunks};

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn the_hunks_picked_are_those_the_unified_diff_shows() {
        let old = numbered(40);
        let new = old
            .replace("line 2\n", "line two\n")
            .replace("line 20\n", "line twenty\n")
            .replace("line 38\n", "line 38\nline 38b\n");
        let shown = unified_diff(&old, &new, "a/f", "b/f");
        assert_eq!(hunk_count(&old, &new), 3);
        assert_eq!(diff_hunks(&shown).len(), 3);
        let pick = |accepted: Vec<usize>| HunkSelection {
            accepted,
            ..HunkSelection::default()
        };
        assert_eq!(apply_picked(&old, &new, 0, &pick(vec![0, 1, 2])), new);
        assert_eq!(apply_picked(&old, &new, 0, &pick(vec![])), old);
        let middle = apply_picked(&old, &new, 0, &pick(vec![1]));
        assert_eq!(middle, old.replace("line 20\n", "line twenty\n"));
        // Numbered from `first`: this file's hunks are 5, 6 and 7 of the call.
        assert_eq!(
            apply_picked(&old, &new, 5, &pick(vec![7])),
            old.replace("line 38\n", "line 38\nline 38b\n")
        );
        let edited = HunkSelection {
            accepted: vec![],
            edited: vec![EditedHunk {
                index: 0,
                text: "line 1\nline TWO\nline 3\nline 4\nline 5\n".into(),
            }],
            note: None,
        };
        assert_eq!(
            apply_picked(&old, &new, 0, &edited),
            old.replace("line 2\n", "line TWO\n")
        );
    }

    #[test]
    fn a_new_file_is_one_hunk() {
        assert_eq!(hunk_count("", "a\nb\n"), 1);
        assert_eq!(hunk_count("same\n", "same\n"), 0);
    }
}
