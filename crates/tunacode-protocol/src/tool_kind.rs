//! What a tool may do, as every layer names it.

use serde::{Deserialize, Serialize};

/// What a tool may do; drives concurrency and approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Only reads: runs in parallel with other read-only calls, needs no approval.
    ReadOnly,
    /// Changes files: runs alone, in call order, after approval.
    Write,
    /// Runs programs: runs alone, in call order, after approval.
    Execute,
}

impl ToolKind {
    /// `read_only`, `write` or `execute`.
    pub fn name(self) -> &'static str {
        match self {
            ToolKind::ReadOnly => "read_only",
            ToolKind::Write => "write",
            ToolKind::Execute => "execute",
        }
    }
}
