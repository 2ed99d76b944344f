//! The public stream-json schema of `tunacode run --output stream-json` (and its input): its own
//! stable types, separate from the runtime's events, so internal changes never break the scripts that read
//! it. Every line is an object with `schema_version` and `type`. Any change to a line (a type or a
//! field added, renamed or removed) needs a new `SCHEMA_VERSION`, its schema pinned in
//! `tests/stream_schema.rs` and a line in `CHANGELOG.md`.

mod input;
mod line;
mod map;
mod notice;
mod output;
mod result;
mod schema;
mod values;

pub use input::{ApprovalChoice, ClaudeMessage, InputLine, LimitChoice, PlanChoice, parse_line};
pub use line::{Line, SCHEMA_VERSION};
pub use map::{from_agent, from_runtime, line_of};
pub use notice::{level_name, session_notice};
pub use output::OutputEvent;
pub use result::{RunResult, ToolSummary};
pub use schema::json_schema;
pub use values::{
    CheckOut, NoticeDetail, RecoveryOut, TodoOut, ToolUseOut, UndoneFile, UsageOut,
    VerificationOut, finish_reason,
};
