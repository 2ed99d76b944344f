//! A patch written in part: the hunks of its preview are numbered across its files, and each file's
//! change keeps only the hunks the user accepted (or rewrote). A file none of whose hunks is kept is
//! left alone, and so is a change with no hunk at all (a move without a content change, an empty
//! file added or deleted): only what the user accepted is written.

use tunacode_protocol::{HunkSelection, HunkVerdict};

use super::change::Change;
use crate::diff::{apply_picked, hunk_count};

/// `changes` as `pick` leaves them, in order.
pub(super) fn picked(changes: Vec<Change>, pick: &HunkSelection) -> Vec<Change> {
    let mut first = 0;
    let mut kept = Vec::with_capacity(changes.len());
    for mut change in changes {
        let (old, new) = (
            change.old.clone().unwrap_or_default(),
            change.new.clone().unwrap_or_default(),
        );
        let count = hunk_count(&old, &new);
        let verdicts: Vec<HunkVerdict> = (first..first + count).map(|i| pick.verdict(i)).collect();
        let whole = verdicts.iter().all(|v| *v == HunkVerdict::Accepted);
        let none = verdicts.iter().all(|v| *v == HunkVerdict::Rejected);
        if count > 0 && whole {
            kept.push(change);
        } else if count > 0 && !none {
            // A file added, or kept instead of deleted, with the user's part of the content.
            change.new = Some(apply_picked(&old, &new, first, pick));
            kept.push(change);
        }
        first += count;
    }
    kept
}
