//! [`HookSet`]: the hooks in force, each resolved to its event, matcher, command, limit and origin.

use std::path::PathBuf;

use tunacode_store::HookEvent;

use super::matcher::matches;

/// One hook command, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hook {
    /// When it runs.
    pub event: HookEvent,
    /// What it matches (tool names, a source, a trigger); `None` or `*`: everything.
    pub matcher: Option<String>,
    /// The shell command.
    pub command: String,
    /// Its time limit in seconds.
    pub timeout_secs: u64,
    /// A failure other than exit code 2 blocks too.
    pub fail_closed: bool,
    /// From a repository's file: runs in the commands' sandbox.
    pub confined: bool,
    /// Where it was declared (shown by `/hooks`).
    pub origin: PathBuf,
}

/// The hooks in force.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookSet {
    /// Every hook, in the order declared (the user's first).
    pub hooks: Vec<Hook>,
}

impl HookSet {
    /// The hooks of `event` that match `subject` (a tool's names, a source), in order.
    pub fn for_event(&self, event: HookEvent, subject: &[&str]) -> Vec<&Hook> {
        self.hooks
            .iter()
            .filter(|h| h.event == event && matches(h.matcher.as_deref(), subject))
            .collect()
    }

    /// Whether any hook runs at `event`.
    pub fn has(&self, event: HookEvent) -> bool {
        self.hooks.iter().any(|h| h.event == event)
    }
}
