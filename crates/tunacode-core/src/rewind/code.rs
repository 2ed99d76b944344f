//! Which files a rewind to a prompt puts back, and from what to what. The turns from that prompt
//! on each changed files between their snapshot before and after (a turn without an after
//! snapshot, cut short by a crash, counts up to now). A file is put back as the first of those
//! before-snapshots had it, but only while it still holds what the last turn that changed it left
//! and the user did not change it between two of the turns (the user's edits are never
//! overwritten). Files over the size cap are named, since only
//! their size and time were recorded.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::MetadataExt;

use tunacode_protocol::runtime::SkippedRestore;
use tunacode_store::{SkippedFile, Snapshot, TurnNode};

use super::ignored::possibly_ignored;
use super::restore::FileTarget;
use crate::checkpoints::{CheckpointError, Checkpoints};

/// What the turns left each file they changed as (a blob; `None`: removed).
type Left = BTreeMap<String, Option<String>>;

/// What a code rewind will do.
#[derive(Debug, Default)]
pub(crate) struct CodePlan {
    /// Files to put back.
    pub(crate) targets: Vec<FileTarget>,
    /// Files that cannot be put back.
    pub(crate) skipped: Vec<SkippedRestore>,
    /// Files the user changed between two of the turns: kept, whatever they hold now.
    pub(crate) user_changed: BTreeSet<String>,
    /// Anything else worth saying.
    pub(crate) notes: Vec<String>,
}

/// The plan for putting the files back as they were before node `to` (0-based) of `nodes`; `now`
/// is a snapshot of the workspace taken just before.
pub(crate) fn code_plan(
    store: &Checkpoints,
    nodes: &[TurnNode],
    to: usize,
    now: &Snapshot,
) -> Result<CodePlan, CheckpointError> {
    let mut plan = CodePlan::default();
    let Some(first) = (to..nodes.len()).find(|&k| nodes[k].before.is_some()) else {
        return Ok(plan);
    };
    let base = nodes[first].before.as_ref().expect("found with a snapshot");
    let (expected, mut big) = turn_changes(store, &nodes[first..], now, &mut plan)?;
    let paths: Vec<String> = expected.keys().cloned().collect();
    let mut entries = store.entries_at(&base.commit, &paths)?;
    plan.targets = expected
        .into_iter()
        .map(|(path, expected)| FileTarget {
            target: entries.remove(&path),
            path,
            expected,
        })
        .collect();
    big.extend(base.skipped.iter().map(|f| f.path.clone()));
    plan.skipped = unrestorable(store, &base.skipped, big);
    unrecorded_notes(store, &nodes[first..], &mut plan.notes);
    Ok(plan)
}

/// What the turns of `nodes` left each file they changed as (`None`: removed), and the big files
/// their snapshots name; the user's changes between two turns and late snapshots go into `plan`.
fn turn_changes(
    store: &Checkpoints,
    nodes: &[TurnNode],
    now: &Snapshot,
    plan: &mut CodePlan,
) -> Result<(Left, BTreeSet<String>), CheckpointError> {
    let mut expected = BTreeMap::new();
    let mut big = BTreeSet::new();
    let mut previous: Option<&Snapshot> = None;
    for node in nodes {
        let Some(before) = &node.before else {
            continue;
        };
        if let Some(previous) = previous {
            // What changed between the last turn's end and this one's start was the user's doing.
            // (An ignored file that appears was not the user's: a turn named it, so it is recorded
            // from then on.)
            let root = store.work_tree();
            let between = store.changes(&previous.commit, &before.commit)?;
            plan.user_changed.extend(
                between
                    .into_iter()
                    .filter(|c| {
                        c.old.is_some() || !possibly_ignored(root, &c.path, &store.limits.exclude)
                    })
                    .map(|c| c.path),
            );
        }
        let after = node.after.as_ref().unwrap_or(now);
        previous = Some(after);
        for change in store.changes(&before.commit, &after.commit)? {
            expected.insert(change.path, change.new);
        }
        big.extend(after.skipped.iter().map(|f| f.path.clone()));
        if before.late {
            plan.notes.push(format!(
                "the snapshot before \"{}\" finished after the turn's first change began: a file a \
                 command changed in that moment is restored as the snapshot found it",
                short(&node.text)
            ));
        }
    }
    Ok((expected, big))
}

/// Notes on what the snapshots never held: repositories of their own, the user's exclusions.
fn unrecorded_notes(store: &Checkpoints, nodes: &[TurnNode], notes: &mut Vec<String>) {
    let nested: BTreeSet<&String> = nodes
        .iter()
        .flat_map(|n| n.before.iter().chain(n.after.iter()))
        .flat_map(|s| s.nested.iter())
        .collect();
    if !nested.is_empty() {
        let list: Vec<&str> = nested.iter().map(|s| s.as_str()).collect();
        notes.push(format!(
            "not recorded, so not restored: {} (a repository of its own)",
            list.join(", ")
        ));
    }
    if !store.limits.exclude.is_empty() {
        notes.push(format!(
            "not recorded, so not restored: {} (settings.rewind.exclude)",
            store.limits.exclude.join(", ")
        ));
    }
}

/// The big files that differ now from how the base snapshot found them (or were not there).
fn unrestorable(
    store: &Checkpoints,
    base: &[SkippedFile],
    big: BTreeSet<String>,
) -> Vec<SkippedRestore> {
    let cap = store.limits.max_file_mb;
    big.into_iter()
        .filter_map(|path| {
            let then = base.iter().find(|f| f.path == path);
            let now = store.work_tree.join(&path).symlink_metadata().ok();
            let same = match (then, &now) {
                (Some(then), Some(meta)) => {
                    let modified =
                        i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec());
                    then.size == meta.len() && then.modified == modified
                }
                (None, None) => true,
                _ => false,
            };
            let size = then.map(|f| f.size).or(now.map(|m| m.len())).unwrap_or(0);
            (!same).then(|| SkippedRestore {
                path,
                reason: format!(
                    "{} is over the {cap} MiB cap of settings.rewind.max_file_mb: only its size \
                     and time were recorded",
                    human_size(size)
                ),
            })
        })
        .collect()
}

/// A size in words (`1.0 GiB`).
fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["bytes", "KiB", "MiB", "GiB"];
    let mut size = bytes as f64;
    let mut unit = 0;
    while size >= 1024.0 && unit < UNITS.len() - 1 {
        size /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{size:.1} {}", UNITS[unit])
    }
}

/// The first line of a prompt, shortened.
pub(crate) fn short(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() > 50 {
        format!("{}…", line.chars().take(49).collect::<String>())
    } else {
        line.to_string()
    }
}
