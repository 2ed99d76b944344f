//! [`RunningAgents`]: the sub-agents running now, with what each has spent (the status line's
//! `⧉ 2 agents $0.0123` segment; `status.rs` draws it).

use std::collections::BTreeMap;

/// One running sub-agent.
#[derive(Debug, Clone, PartialEq)]
pub struct RunningAgent {
    /// Its type.
    pub agent_type: String,
    /// What it does.
    pub description: String,
    /// What it spent so far, in USD.
    pub cost: f64,
    /// Its tokens so far, in and out.
    pub tokens: u64,
}

/// The running sub-agents, by their parent's `task` call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunningAgents {
    /// By call id.
    pub by_call: BTreeMap<String, RunningAgent>,
}
