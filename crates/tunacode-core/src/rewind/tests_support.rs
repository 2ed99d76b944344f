//! Helpers for the shadow store's own tests.

use tunacode_store::Snapshot;

use super::restore::FileTarget;
use crate::checkpoints::Checkpoints;

/// The targets that put every file changed from `before` to `after` back as `before` had it.
pub(crate) fn plan_back(
    store: &Checkpoints,
    before: &Snapshot,
    after: &Snapshot,
) -> Vec<FileTarget> {
    let changes = store
        .changes(&before.commit, &after.commit)
        .expect("changes");
    let paths: Vec<String> = changes.iter().map(|c| c.path.clone()).collect();
    let mut entries = store.entries_at(&before.commit, &paths).expect("entries");
    changes
        .into_iter()
        .map(|c| FileTarget {
            target: entries.remove(&c.path),
            expected: c.new,
            path: c.path,
        })
        .collect()
}
