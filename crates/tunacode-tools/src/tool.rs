//! The [`Tool`] trait, its context, outputs and errors, and the [`ToolSet`] the engine offers the model.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use tunacode_protocol::ToolSpec;

use crate::workspace::Workspace;

pub use tunacode_protocol::ToolKind;

/// Everything a tool call may use.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The workspace every path is resolved against.
    pub workspace: Workspace,
    /// Fires when the user aborts; long-running tools must stop promptly.
    pub cancel: CancellationToken,
    /// How commands run (sandbox, environment).
    pub exec: Arc<crate::ExecPolicy>,
    /// Where a running command's output goes as it is produced (`None`: only the final result).
    pub output: Option<crate::ToolOutputSink>,
}

/// What a tool returns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOutput {
    /// The text sent back to the model.
    pub content: String,
    /// A unified diff of a file change, for display.
    pub diff: Option<String>,
    /// Images sent to the model with the text (where its provider takes images in tool results).
    pub images: Vec<ImageAttachment>,
}

/// An image a tool returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageAttachment {
    /// E.g. `image/png`.
    pub media_type: String,
    /// The bytes, base64.
    pub data: String,
}

impl ToolOutput {
    /// An output with text only.
    pub fn text(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            ..ToolOutput::default()
        }
    }
}

/// Why a tool call failed. Encodes the policy: what the model can fix goes back to it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ToolError {
    /// The model can fix this (bad arguments, missing file, no match): sent back as a retry prompt.
    #[error("{0}")]
    Retry(String),
    /// A passing failure (I/O error, resource busy): retried with backoff, then recorded as failed.
    #[error("{0}")]
    Transient(String),
    /// Will not succeed on retry: recorded as failed and reported to the model.
    #[error("{0}")]
    Fatal(String),
    /// The user aborted the call.
    #[error("cancelled by user")]
    Cancelled,
}

/// A tool the model can call.
#[async_trait]
pub trait Tool: Send + Sync {
    /// The name the model calls it by. Borrowed from the tool, so a tool built at run time (from an MCP
    /// server, say) can own it.
    fn name(&self) -> &str;
    /// What it does and when to use it (sent to the model).
    fn description(&self) -> &str;
    /// JSON schema of its arguments (an object schema).
    fn parameters(&self) -> Value;
    /// What it may do: the most any call of it may do.
    fn kind(&self) -> ToolKind;
    /// What THIS call may do, which may be less than [`Tool::kind`] (a `bash` call running a known
    /// read-only command is [`ToolKind::ReadOnly`]). Drives approval and parallelism of the call. By
    /// default, the tool's kind.
    fn classify(&self, _args: &Map<String, Value>) -> ToolKind {
        self.kind()
    }
    /// The files THIS call would create, change, move or delete, as asked: made absolute, `..`
    /// removed, links not followed ([`Workspace::lexical`]). The approval policy asks about a call
    /// that touches a protected path every time. By default none (the tool changes no file by name).
    fn target_paths(&self, _args: &Map<String, Value>, _workspace: &Workspace) -> Vec<PathBuf> {
        Vec::new()
    }
    /// Runs the tool.
    async fn call(
        &self,
        args: Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError>;
    /// What approving this call means, shown to the user before a write or a command runs: a diff for
    /// file changes, the command line for commands. `None` when there is nothing more to show.
    async fn preview(
        &self,
        _args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Option<String>, ToolError> {
        Ok(None)
    }
    /// The spec offered to the model.
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: self.description().to_string(),
            parameters: self.parameters(),
        }
    }
}

/// Tools that come and go while a session runs (an MCP server's, once it is ready). Asked before every
/// model request.
pub trait ToolSource: Send + Sync {
    /// The tools offered now, in a stable order.
    fn tools(&self) -> Vec<Arc<dyn Tool>>;
}

/// The set of tools offered to the model in one request.
#[derive(Clone, Default)]
pub struct ToolSet {
    tools: Vec<Arc<dyn Tool>>,
}

impl std::fmt::Debug for ToolSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|t| t.name()))
            .finish()
    }
}

impl ToolSet {
    /// An empty set.
    pub fn new() -> Self {
        ToolSet { tools: Vec::new() }
    }

    /// The built-in tools, with a todo list of their own.
    pub fn builtin() -> Self {
        Self::builtin_with_todos(&crate::TodoList::default())
    }

    /// The built-in tools; `todo` works on `todos` (the session's list).
    pub fn builtin_with_todos(todos: &crate::TodoList) -> Self {
        let mut set = ToolSet::new();
        for tool in crate::builtin_tools(todos) {
            set.add(tool);
        }
        set
    }

    /// Only the tools `keep` accepts (e.g. the read-only ones in plan mode).
    pub fn filtered(&self, keep: impl Fn(&dyn Tool) -> bool) -> Self {
        ToolSet {
            tools: self
                .tools
                .iter()
                .filter(|t| keep(t.as_ref()))
                .cloned()
                .collect(),
        }
    }

    /// Adds a tool, replacing one of the same name.
    pub fn add(&mut self, tool: Arc<dyn Tool>) {
        self.tools.retain(|t| t.name() != tool.name());
        self.tools.push(tool);
    }

    /// Removes the tool called `name`; returns whether there was one.
    pub fn remove(&mut self, name: &str) -> bool {
        let before = self.tools.len();
        self.tools.retain(|t| t.name() != name);
        self.tools.len() != before
    }

    /// Finds a tool by name.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools.iter().find(|t| t.name() == name).cloned()
    }

    /// How many tools the set holds.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the set holds no tool.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// The specs offered to the model, in order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(|t| t.spec()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool known only at run time: it owns its name and description.
    struct Dynamic {
        name: String,
        description: String,
    }

    #[async_trait]
    impl Tool for Dynamic {
        fn name(&self) -> &str {
            &self.name
        }
        fn description(&self) -> &str {
            &self.description
        }
        fn parameters(&self) -> Value {
            serde_json::json!({"type": "object", "properties": {}, "required": []})
        }
        fn kind(&self) -> ToolKind {
            ToolKind::Execute
        }
        async fn call(
            &self,
            _args: Map<String, Value>,
            _ctx: &ToolContext,
        ) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::text(self.description.clone()))
        }
    }

    fn dynamic(name: &str, description: &str) -> Arc<dyn Tool> {
        Arc::new(Dynamic {
            name: format!("mcp__{name}"),
            description: description.to_string(),
        })
    }

    #[test]
    fn run_time_tools_are_added_replaced_and_removed_by_name() {
        let mut set = ToolSet::builtin();
        assert_eq!(set.len(), 10);
        set.add(dynamic("search", "first"));
        set.add(dynamic("search", "second"));
        assert_eq!(set.len(), 11);
        let tool = set.get("mcp__search").expect("added");
        assert_eq!(tool.description(), "second");
        assert_eq!(tool.spec().name, "mcp__search");
        assert_eq!(set.names().last(), Some(&"mcp__search"));

        assert!(set.remove("mcp__search"));
        assert!(!set.remove("mcp__search"));
        assert!(set.get("mcp__search").is_none());
        assert!(set.remove("bash"));
        assert_eq!(set.len(), 9);
        assert!(!set.names().contains(&"bash"));

        let empty = ToolSet::new();
        assert!(empty.is_empty() && empty.names().is_empty());
        assert!(!set.is_empty());
    }

    #[test]
    fn a_call_is_classified_as_its_tool_kind_by_default() {
        let tool = dynamic("x", "y");
        assert_eq!(tool.classify(&Map::new()), ToolKind::Execute);
        for tool in crate::builtin_tools(&crate::TodoList::default()) {
            assert_eq!(tool.classify(&Map::new()), tool.kind(), "{}", tool.name());
        }
    }
}
