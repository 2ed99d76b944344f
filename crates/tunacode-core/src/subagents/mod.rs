//! Sub-agents: the `task` tool starts a helper with its own history, tools, model and budget, on
//! the same runtime (the same sandbox, policy and store), and returns what it did and found as a
//! structured result. Several `task` calls of one response run in parallel, bounded by
//! `settings.agents.max_parallel`; a sub-agent cannot start another.
//!
//! - `host.rs`: what a runtime starts sub-agents with (the types, their models, the places);
//! - `types.rs`: agent types (built in, the user's, a repository's once approved);
//! - `approval.rs`: the approval of a repository's types;
//! - `task_tool.rs`: the tool the model calls;
//! - `child.rs`: building the sub-agent's engine from its parent's;
//! - `approver.rs`: its questions, labelled with it;
//! - `report.rs`: what it did, from its session, as the parent's tool result.

mod apply;
pub(crate) mod approval;
mod approver;
mod child;
pub(crate) mod host;
mod isolation;
mod read_only_bash;
mod report;
pub(crate) mod task_tool;
mod types;
mod worktree;
mod worktree_lock;
mod worktree_walk;

pub use approval::{ResolvedTypes, approve_project_agents, describe_agents, resolve_types};
pub use types::{AgentType, READ_ONLY_TOOLS, builtin_types, parse_type};
