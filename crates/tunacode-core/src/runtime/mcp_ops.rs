//! [`McpOps`], the handler of the MCP operations: starting the configured servers when the session
//! opens (in the background: nothing waits for them), reporting their states, approving the
//! project's `.mcp.json`, adding servers an editor hands over.

use std::path::PathBuf;

use tunacode_protocol::McpServerSpec;
use tunacode_store::{Paths, UserConfig, approve_project_mcp};

use crate::mcp::{McpManager, McpSettings, client_entries, resolve_mcp};
use crate::runtime::blocking::off_thread;
use crate::runtime::events::{OpFailure, RuntimeEvent, store_failure};

/// The MCP handler: the servers' manager.
pub(super) struct McpOps {
    mcp: McpManager,
}

impl McpOps {
    /// A handler over `mcp`.
    pub(super) fn new(mcp: McpManager) -> Self {
        McpOps { mcp }
    }

    /// Starts the configured servers; the event saying the project's file waits for approval, if it
    /// does.
    pub(super) fn start(&self, settings: &McpSettings) -> Option<RuntimeEvent> {
        self.mcp.start(settings.servers.clone());
        let project = settings.project.as_ref().filter(|p| !p.approved)?;
        Some(RuntimeEvent::McpProjectPending {
            file: project.file.clone(),
            servers: project.names.clone(),
        })
    }

    /// The servers' states.
    pub(super) fn list(&self) -> RuntimeEvent {
        RuntimeEvent::McpServers(self.mcp.statuses())
    }

    /// Starts servers an editor hands over.
    pub(super) fn add(&self, servers: Vec<McpServerSpec>) {
        self.mcp.start(client_entries(servers));
    }

    /// Approves the project's `.mcp.json` as it reads now (under `cwd`) and starts its servers.
    pub(super) async fn approve_project(
        &self,
        paths: Paths,
        cwd: PathBuf,
    ) -> Result<(), OpFailure> {
        let servers = off_thread("approving .mcp.json", move || {
            let config = UserConfig::load(&paths.config_file).map_err(store_failure)?;
            let resolved = resolve_mcp(&paths, &config, &cwd);
            let Some(project) = resolved.project else {
                return Err(OpFailure::Invalid(
                    "this project has no .mcp.json with servers to approve".into(),
                ));
            };
            approve_project_mcp(&paths.mcp_approvals, &project.file, &project.text)
                .map_err(store_failure)?;
            Ok(project.servers)
        })
        .await?;
        self.mcp.start(servers);
        Ok(())
    }

    /// Stops every server.
    pub(super) async fn shutdown(&self) {
        self.mcp.shutdown().await;
    }
}
