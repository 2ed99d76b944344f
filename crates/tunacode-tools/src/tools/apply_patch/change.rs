//! [`Change`]: one file's change in a patch, checked and computed, and how it is shown.

use crate::diff::unified_diff;
use crate::workspace::Located;

/// One file's change, checked and computed.
pub(super) struct Change {
    /// Where it is now (or will be, for an added file).
    pub(super) at: Located,
    /// The path as shown to the user and the model.
    pub(super) shown: String,
    /// Its content now (`None`: it does not exist yet).
    pub(super) old: Option<String>,
    /// Its content after (`None`: deleted).
    pub(super) new: Option<String>,
    /// For a move: where it goes.
    pub(super) move_to: Option<(Located, String)>,
}

impl Change {
    pub(super) fn new(
        at: Located,
        shown: String,
        old: Option<String>,
        new: Option<String>,
        move_to: Option<(Located, String)>,
    ) -> Self {
        Change {
            at,
            shown,
            old,
            new,
            move_to,
        }
    }

    /// One line naming the change: `A`dded, `D`eleted, `R`enamed or `M`odified.
    pub(super) fn summary(&self) -> String {
        match (&self.old, &self.new, &self.move_to) {
            (None, _, _) => format!("A {}", self.shown),
            (_, None, _) => format!("D {}", self.shown),
            (_, _, Some((_, to))) => format!("R {} -> {to}", self.shown),
            _ => format!("M {}", self.shown),
        }
    }

    /// The change as a unified diff, `/dev/null` standing for a missing side. A change with no hunk
    /// (a move without a content change, an empty file added or deleted) still shows its headers, so
    /// the approval shows it.
    pub(super) fn diff(&self) -> String {
        let old_header = match &self.old {
            Some(_) => format!("a/{}", self.shown),
            None => "/dev/null".into(),
        };
        let new_header = match (&self.new, &self.move_to) {
            (None, _) => "/dev/null".into(),
            (_, Some((_, to))) => format!("b/{to}"),
            _ => format!("b/{}", self.shown),
        };
        let (old, new) = (
            self.old.as_deref().unwrap_or(""),
            self.new.as_deref().unwrap_or(""),
        );
        let diff = unified_diff(old, new, &old_header, &new_header);
        if diff.is_empty() {
            return format!("--- {old_header}\n+++ {new_header}\n");
        }
        diff
    }
}
