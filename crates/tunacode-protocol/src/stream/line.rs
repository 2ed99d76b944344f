//! [`Line`]: every output line is an event with the schema's version beside its `type`.

use schemars::JsonSchema;
use serde::Serialize;

/// The version of this schema, on every line.
pub const SCHEMA_VERSION: u32 = 5;

/// One output line.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Line<T: Serialize> {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The event.
    #[serde(flatten)]
    pub event: T,
}

impl<T: Serialize> Line<T> {
    /// Wraps an event.
    pub fn new(event: T) -> Self {
        Line {
            schema_version: SCHEMA_VERSION,
            event,
        }
    }
}
