//! The runtime's protocol: the operations front ends submit and the events they render. Plain,
//! serializable data with no engine type in it, so a front end needs only this crate and the
//! runtime's handle.

mod budget;
mod context;
mod event;
mod failure;
mod op;
mod project_file;
mod question;
mod rewind;
mod session;
mod setup;
mod subagent;

pub use budget::{BudgetQuestion, BudgetScope, BudgetView, CapView};
pub use context::{ContextBreakdown, ContextItem, ContextSection};
pub use event::{RequestEnd, RunOutcome, RuntimeEvent};
pub use failure::{OpFailure, RequestFailure};
pub use op::{Attachment, ImageInput, Op, Secret};
pub use project_file::{PendingProjectFile, ProjectFileKind};
pub use question::{
    Answer, ApprovalAnswer, ApprovalQuestion, LimitDecision, LoopDecision, LoopQuestion,
    PlanDecision, ProgressReport, Question, QuestionKind, SessionScope,
};
pub use rewind::{ExportFormat, Forked, RewindMode, Rewound, SkippedRestore, TurnView};
pub use session::{
    CommandView, ForkOrigin, JournalRecovery, ListedSession, ModelView, SessionNotice,
    SessionSummary, SessionView, UndoneFile,
};
pub use setup::{CatalogueModel, ModelCatalogue, ProviderInfo, SetupChoice, SetupInfo};
pub use subagent::{SubagentChange, SubagentLabel, SubagentReport, SubagentStatus, SubagentUpdate};
