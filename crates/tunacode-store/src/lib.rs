//! Files of TunaCode: the user's config (`~/.config/tunacode.json`), session files (one per session under
//! the XDG data dir, grouped by project, written atomically), and where they live.

mod agents_config;
mod budget_config;
mod checks_config;
mod config;
mod config_mcp;
mod config_write;
mod error;
mod hooks_config;
mod journal;
mod journal_replay;
mod legacy_v02;
mod loop_config;
mod lsp_config;
mod mcp_approvals;
mod paths;
mod private;
mod rewind_config;
mod session_file;
mod session_list;
mod session_store;
mod session_summary;
mod session_tree;
mod spend_ledger;

pub use agents_config::AgentsConfig;
pub use budget_config::{BudgetConfig, Cap};
pub use checks_config::{
    CheckKind, CheckSpec, CheckWhen, ChecksConfig, ProjectChecks, parse_project_checks,
};
pub use config::{
    CustomProvider, PermissionsConfig, SandboxConfig, Settings, ShellEnvConfig, UserConfig,
    WebFetchConfig,
};
pub use config_mcp::{McpFile, add_mcp_server, read_mcp_file, remove_mcp_server};
pub use config_write::{
    SetupUpdate, config_with_setup, save_model_setting, save_setting, save_setup,
};
pub use error::StoreError;
pub use hooks_config::{
    HookCommand, HookEvent, HookMatcher, HooksConfig, ProjectHooks, parse_project_hooks,
};
pub use journal::{Journal, JournalBase, JournalEntry, JournalRecord};
pub use journal_replay::{JournalProblem, Replay, replay_journal};
pub use loop_config::LoopDetectionConfig;
pub use lsp_config::{LspConfig, LspServerConfig};
pub use mcp_approvals::{approve_project_mcp, content_digest, is_project_mcp_approved};
pub use paths::{Paths, project_id};
pub use private::{private_dir, private_tree, write_file_atomically};
pub use rewind_config::RewindConfig;
pub use session_file::{SESSION_FORMAT_VERSION, SessionFile, now_rfc3339};
pub use session_list::INDEX_FILE;
pub use session_store::{
    KeptAside, LoadedSession, SessionStore, SessionSummary, is_session_id, parse_session,
};
pub use session_tree::{
    ForkOrigin, LoadedTree, RedoPoint, SessionTree, SkippedFile, Snapshot, TREE_FORMAT_VERSION,
    TreeEvent, TurnNode,
};
pub use spend_ledger::{Spend, SpendLedger};
