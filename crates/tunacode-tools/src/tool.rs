//! The [`Tool`] trait, its context, outputs and errors.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use tunacode_protocol::ToolSpec;

use crate::exec::ExecPolicy;
use crate::live::ToolOutputSink;
use crate::tool_error::ToolError;
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
    pub exec: Arc<ExecPolicy>,
    /// Where a running command's output goes as it is produced (`None`: only the final result).
    pub output: Option<ToolOutputSink>,
    /// The id of the model's call being run (empty when the agent runs a tool on its own account).
    pub call_id: String,
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
    /// Whether the tool ends its call itself soon after [`ToolContext::cancel`] fires, with a result
    /// worth keeping (a sub-agent saves its session and says what it did so far). Other calls are
    /// dropped when the request is cancelled. By default not.
    fn stops_itself(&self) -> bool {
        false
    }
    /// Whether THIS call may change files in the workspace, so rewind records it first. By default,
    /// whether it is more than a read ([`Tool::classify`]); a tool that reads as it runs but has its
    /// changes written afterwards (a sub-agent's) says so itself.
    fn may_change_files(&self, args: &Map<String, Value>) -> bool {
        self.classify(args) != ToolKind::ReadOnly
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
    /// Whether the change this tool previews can be written in part, hunk by hunk
    /// ([`Tool::call_picked`]). By default not.
    fn picks_hunks(&self) -> bool {
        false
    }
    /// Runs the call writing only the hunks `pick` accepts (or rewrote) of `reviewed`, the preview
    /// the user reviewed; a change that no longer reads as `reviewed` is refused with nothing
    /// written. Only for a tool whose [`Tool::picks_hunks`] is true.
    async fn call_picked(
        &self,
        _args: Map<String, Value>,
        _ctx: &ToolContext,
        _reviewed: &str,
        _pick: &tunacode_protocol::HunkSelection,
    ) -> Result<ToolOutput, ToolError> {
        Err(ToolError::Fatal(format!(
            "`{}` cannot write part of its change",
            self.name()
        )))
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
