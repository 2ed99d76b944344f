//! One MCP server tool as a [`Tool`]: offered as `mcp__<server>__<tool>`, approved like a command
//! (a server tool can do anything) unless it is annotated read-only and the user trusts the server's
//! hints, called with the configured timeout, and cancelled (`notifications/cancelled`) when the user
//! interrupts.

use std::time::Duration;

use async_trait::async_trait;
use rmcp::RoleClient;
use rmcp::model::CallToolRequestParams;
use rmcp::service::Peer;
use serde_json::{Map, Value};
use tunacode_tools::{Tool, ToolContext, ToolError, ToolKind, ToolOutput, provider_schema};

use crate::config::ServerConfig;
use crate::names::qualified_name;
use crate::result::{result_images, result_text};

/// A tool of a connected server.
#[derive(Debug, Clone)]
pub struct McpTool {
    name: String,
    server: String,
    tool: String,
    description: String,
    parameters: Value,
    read_only: bool,
    timeout: Duration,
    peer: Peer<RoleClient>,
}

impl McpTool {
    /// The tool `tool` of the server configured by `config`, reached through `peer`.
    pub(crate) fn new(
        config: &ServerConfig,
        tool: &rmcp::model::Tool,
        peer: Peer<RoleClient>,
    ) -> Self {
        let read_only = config.trust_read_only_hints
            && tool
                .annotations
                .as_ref()
                .and_then(|a| a.read_only_hint)
                .unwrap_or(false);
        let description = tool
            .description
            .as_deref()
            .or(tool.title.as_deref())
            .unwrap_or("")
            .to_string();
        McpTool {
            name: qualified_name(&config.name, &tool.name),
            server: config.name.clone(),
            tool: tool.name.to_string(),
            description: format!("[MCP server `{}`] {description}", config.name),
            parameters: provider_schema(Value::Object((*tool.input_schema).clone())),
            read_only,
            timeout: config.tool_timeout,
            peer,
        }
    }

    /// The server it belongs to.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// Its name on the server.
    pub fn original_name(&self) -> &str {
        &self.tool
    }
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        self.parameters.clone()
    }

    fn kind(&self) -> ToolKind {
        if self.read_only {
            ToolKind::ReadOnly
        } else {
            ToolKind::Execute
        }
    }

    async fn call(
        &self,
        args: Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let mut params = CallToolRequestParams::new(self.tool.clone());
        params.arguments = Some(args);
        // Dropping the call (on cancel or timeout) sends `notifications/cancelled` to the server.
        let call = tokio::time::timeout(self.timeout, self.peer.call_tool(params));
        let result = tokio::select! {
            biased;
            _ = ctx.cancel.cancelled() => return Err(ToolError::Cancelled),
            result = call => result,
        };
        let result = match result {
            Err(_) => {
                return Err(ToolError::Fatal(format!(
                    "MCP tool `{}` of server `{}` did not answer within {} s",
                    self.tool,
                    self.server,
                    self.timeout.as_secs_f64()
                )));
            }
            Ok(Err(e)) => {
                return Err(ToolError::Fatal(format!(
                    "MCP server `{}` failed the call: {e}",
                    self.server
                )));
            }
            Ok(Ok(result)) => result,
        };
        let text = result_text(&result);
        if result.is_error == Some(true) {
            return Err(ToolError::Retry(text));
        }
        Ok(ToolOutput {
            images: result_images(&result),
            ..ToolOutput::text(text)
        })
    }

    async fn preview(
        &self,
        args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Option<String>, ToolError> {
        let args = serde_json::to_string_pretty(args).unwrap_or_default();
        Ok(Some(format!(
            "MCP server `{}`, tool `{}`\n{args}",
            self.server, self.tool
        )))
    }
}
