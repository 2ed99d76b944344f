//! [`Line`]: every output line is an event with the schema's version beside its `type`.

use schemars::JsonSchema;
use serde::Serialize;

/// The version of this schema, on every line.
pub const SCHEMA_VERSION: u32 = 6;

/// One output line.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Line<T: Serialize> {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The parent's `task` call, on every line a sub-agent's work produced (absent on the agent's
    /// own lines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_tool_call_id: Option<String>,
    /// The event.
    #[serde(flatten)]
    pub event: T,
}

impl<T: Serialize> Line<T> {
    /// Wraps an event.
    pub fn new(event: T) -> Self {
        Line {
            schema_version: SCHEMA_VERSION,
            parent_tool_call_id: None,
            event,
        }
    }

    /// The line as one of a sub-agent's, started by the parent's call `parent_tool_call_id`.
    pub fn under(mut self, parent_tool_call_id: &str) -> Self {
        self.parent_tool_call_id = Some(parent_tool_call_id.to_string());
        self
    }
}
