//! The TunaCode agent engine: the request loop of seed 000/001 ([`Agent::process_request`]), node
//! processing, tool dispatch and its concurrency policy, the [`ToolCallRegistry`], [`ResponseState`],
//! history preparation, and the [`tunacode_protocol::AgentEvent`] stream; and the conversation
//! [`Runtime`] that front ends drive with operations, built from [`RuntimeSettings`]. Nothing here
//! prints.

mod agent;
mod agent_options;
mod approval;
pub mod budget;
mod budget_plan;
mod budget_settings;
mod checkpoint_git;
mod checkpoint_lock;
pub mod checkpoints;
pub mod checks;
mod client_cache;
pub mod compaction;
mod compaction_attachments;
mod compaction_transcript;
pub mod completion;
pub mod concurrency;
pub mod custom_commands;
mod dispatch;
pub mod egress;
mod error;
mod events;
pub mod exec_settings;
pub mod fallback_parse;
pub mod guidance;
pub mod history;
pub mod hooks;
pub mod instructions;
pub mod loop_watch;
pub mod lsp;
mod markdown_files;
pub mod mcp;
pub mod mentions;
mod orchestrator;
pub mod permissions;
mod plan_tools;
pub mod project_file_state;
pub mod project_files;
pub mod prompt;
pub mod prompt_images;
pub mod registry;
pub mod response_state;
pub mod rewind;
pub mod runtime;
pub mod saved_sessions;
mod session;
pub mod settings;
mod settings_error;
pub mod setup;
pub mod skills;
mod streaming;
pub mod subagents;
pub mod tokens;

pub use agent::{Agent, AgentOptions, AgentParts, FallbackModel, RunOutcome};
pub use approval::{
    ApprovalDecision, ApprovalRequest, Approver, AutoApprove, DenyAll, Gate, LimitDecision,
    LoopDecision, LoopQuestion, PlanDecision, ProgressReport,
};
pub use async_trait::async_trait;
pub use client_cache::{ClientCache, ClientFactory};
pub use completion::COMPLETION_MARKER;
pub use dispatch::CANCELLED_ANSWER;
pub use error::RequestError;
pub use events::EventSink;
pub use guidance::GuidanceOptions;
pub use history::PruneConfig;
pub use plan_tools::PLAN_FILE;
pub use registry::{ToolCallRegistry, ToolCallStatus};
pub use response_state::{AgentState, ResponseState};
pub use runtime::{
    Answer, ApprovalAnswer, JournalRecovery, LaunchError, LaunchOptions, Op, Question,
    QuestionKind, RequestEnd, Runtime, RuntimeConfig, RuntimeError, RuntimeEvent, RuntimeHandle,
    SessionChoice, SessionNotice, SessionScope, SessionView, SetupMode,
};
pub use session::{RuntimeState, Session, SessionHandle, TaskState, UsageState};
pub use settings::{ModelSettings, RuntimeSettings, SettingsError, SettingsFlags};
pub use tunacode_store::Paths;
pub use tunacode_tools::EditorFiles;
