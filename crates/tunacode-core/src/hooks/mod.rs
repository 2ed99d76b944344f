//! Lifecycle hooks (issue "proof of done", point 4), on Claude Code's contract so existing scripts
//! run unchanged: the event as JSON on stdin, exit 0 proceeds (stdout may be JSON with a decision,
//! context or a changed input), exit 2 blocks with stderr told to the model, any other code is
//! reported and blocks nothing unless the hook says `failClosed`.
//!
//! - `resolve.rs`: the user's `hooks` (run as the user's own commands) and a repository's
//!   `.tunacode/hooks.json` once approved (run in the commands' sandbox);
//! - `matcher.rs`: which hooks a tool (or a source, a trigger) wakes, by Claude Code's tool names;
//! - `tool_input.rs`: our tools' arguments in Claude Code's shape, and a changed input back;
//! - `run.rs`: running one hook and reading its answer; `verdict.rs`: the answers of an event's
//!   hooks together;
//! - `tool_hooks.rs`: `PreToolUse` and `PostToolUse` around each tool call.

mod matcher;
mod resolve;
mod run;
mod set;
mod tool_hooks;
mod tool_input;
mod verdict;

pub use matcher::{claude_tool_name, matches};
pub use resolve::{
    HOOKS_FILE, ResolvedHooks, approve_project_hooks, describe_hooks, resolve_hooks,
};
pub use run::{HookContext, run_event};
pub use set::{Hook, HookSet};
pub use tool_hooks::{BeforeTool, EngineToolHooks};
pub use tunacode_store::HookEvent;
pub use verdict::Verdict;
