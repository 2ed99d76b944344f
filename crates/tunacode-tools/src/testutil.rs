//! Helpers shared by the tools' unit tests.

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::tool::ToolContext;
use crate::workspace::Workspace;

/// A context rooted at `dir`.
pub(crate) fn ctx(dir: &std::path::Path) -> ToolContext {
    ToolContext {
        workspace: Workspace::new(dir),
        cancel: CancellationToken::new(),
        exec: Default::default(),
        output: None,
        call_id: String::new(),
    }
}

/// The argument map of a JSON object.
pub(crate) fn args(v: Value) -> Map<String, Value> {
    v.as_object().expect("arguments must be an object").clone()
}
