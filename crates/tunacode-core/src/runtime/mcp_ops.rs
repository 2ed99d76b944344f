//! The runtime's MCP operations: starting the configured servers when the session opens (in the
//! background: nothing waits for them), reporting their states, approving the project's `.mcp.json`.

use tunacode_store::{UserConfig, approve_project_mcp};

use crate::mcp::resolve_mcp;
use crate::runtime::actor::Actor;
use crate::runtime::events::{OpFailure, RuntimeEvent, store_failure};

impl Actor {
    /// Starts the configured servers and says when the project's file waits for approval.
    pub(super) fn start_mcp(&self) {
        let mcp = &self.parts.settings.mcp;
        self.parts.mcp.start(mcp.servers.clone());
        if let Some(project) = mcp.project.as_ref().filter(|p| !p.approved) {
            self.parts.events.send(RuntimeEvent::McpProjectPending {
                file: project.file.clone(),
                servers: project.names.clone(),
            });
        }
    }

    pub(super) fn on_list_mcp(&self) {
        self.parts
            .events
            .send(RuntimeEvent::McpServers(self.parts.mcp.statuses()));
    }

    /// Approves the project's `.mcp.json` as it reads now and starts its servers.
    pub(super) async fn on_approve_project_mcp(&mut self) {
        let settings = self.parts.settings.clone();
        let approved = tokio::task::spawn_blocking(move || {
            let config = UserConfig::load(&settings.paths.config_file)?;
            let resolved = resolve_mcp(&settings.paths, &config, &settings.cwd);
            let Some(project) = resolved.project else {
                return Ok(None);
            };
            approve_project_mcp(&settings.paths.mcp_approvals, &project.file, &project.text)?;
            Ok::<_, tunacode_store::StoreError>(Some(project.servers))
        })
        .await;
        match approved {
            Ok(Ok(Some(servers))) => self.parts.mcp.start(servers),
            Ok(Ok(None)) => self.fail(OpFailure::Invalid(
                "this project has no .mcp.json with servers to approve".into(),
            )),
            Ok(Err(e)) => self.fail(store_failure(e)),
            Err(e) => self.fail(OpFailure::Invalid(format!("internal error: {e}"))),
        }
    }
}
