//! [`ReadOnlyCommands`]: `bash` for a read-only agent type (`explore`): a command the analysis
//! reads as read-only runs as `bash` would run it; anything else is refused before it runs, with
//! no question to the user.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Map, Value};
use tunacode_tools::{Tool, ToolContext, ToolError, ToolKind, ToolOutput};

/// `bash`, limited to read-only commands.
pub(super) struct ReadOnlyCommands {
    pub(super) bash: Arc<dyn Tool>,
}

#[async_trait]
impl Tool for ReadOnlyCommands {
    fn name(&self) -> &str {
        self.bash.name()
    }

    fn description(&self) -> &str {
        "Runs a read-only shell command (ls, cat, git log, grep, find, …). Commands that could \
         change anything are refused."
    }

    fn parameters(&self) -> Value {
        self.bash.parameters()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::ReadOnly
    }

    async fn call(
        &self,
        args: Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        if self.bash.classify(&args) != ToolKind::ReadOnly {
            return Err(ToolError::Retry(
                "this agent runs read-only commands only (ls, cat, grep, git log, …); this one \
                 could change something, so it was not run"
                    .into(),
            ));
        }
        self.bash.call(args, ctx).await
    }
}
