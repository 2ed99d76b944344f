//! The public stream-json schema of `tunacode run --output stream-json` (and its input): its own
//! stable types, separate from the runtime's events, so internal changes never break the scripts that read
//! it. Every line is an object with `schema_version` and `type`. Adding a type or a field is
//! compatible; renaming or removing one needs a new `SCHEMA_VERSION`.

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
pub use map::{from_agent, from_runtime};
pub use notice::{level_name, session_notice};
pub use output::OutputEvent;
pub use result::{RunResult, ToolSummary};
pub use schema::json_schema;
pub use values::{
    NoticeDetail, RecoveryOut, TodoOut, ToolUseOut, UndoneFile, UsageOut, finish_reason,
};
