//! MCP servers in the UI: their count in the status line, a notice when one fails or the project's
//! `.mcp.json` waits for approval, and `/mcp` (states and tools; `/mcp approve`).

use std::path::Path;

use tunacode_core::Op;
use tunacode_protocol::NoticeLevel;
use tunacode_protocol::{ServerState, ServerStatus};

use crate::app::state::App;
use crate::app::status::McpSummary;
use crate::app::transcript::CellKind;

impl App {
    /// A server's state changed: kept for `/mcp` and the status line; a failure is said once.
    pub(crate) fn on_mcp_status(&mut self, status: ServerStatus) {
        let name = status.name.clone();
        if let Some(reason) = self.mirror.record_mcp(status) {
            self.view.transcript.push(CellKind::Notice(
                NoticeLevel::Warning,
                format!(
                    "MCP server `{name}` is not available: {reason}. The session goes on without it."
                ),
            ));
        }
        self.view.status.mcp = summary(self.mirror.mcp_servers.values());
    }

    /// The project's `.mcp.json` names servers the user has not approved yet.
    pub(crate) fn on_mcp_project_pending(&mut self, file: &Path, servers: &[String]) {
        self.view.transcript.push(CellKind::Notice(
            NoticeLevel::Warning,
            format!(
                "{} names MCP servers ({}) that run only once you approve them: /mcp approve",
                file.display(),
                servers.join(", ")
            ),
        ));
    }

    /// `/mcp`: every server with its state and tools; `/mcp approve`: approve the project's file.
    pub(crate) fn mcp_command(&mut self, arg: Option<&str>) {
        match arg {
            Some("approve") => self.submit_op(Op::ApproveProjectMcp),
            Some(other) => self.view.transcript.push(CellKind::Error(format!(
                "Unknown /mcp argument `{other}`: use /mcp or /mcp approve."
            ))),
            None => self
                .view
                .transcript
                .push(CellKind::Info(mcp_text(self.mirror.mcp_servers.values()))),
        }
    }
}

/// The status-line summary (`None` when no server is configured).
fn summary<'a>(servers: impl Iterator<Item = &'a ServerStatus>) -> Option<McpSummary> {
    let mut out = McpSummary {
        ready: 0,
        failed: 0,
        total: 0,
    };
    for status in servers {
        match status.state {
            ServerState::Disabled => continue,
            ServerState::Ready => out.ready += 1,
            ServerState::Failed(_) => out.failed += 1,
            ServerState::Starting | ServerState::Stopped => {}
        }
        out.total += 1;
    }
    (out.total > 0).then_some(out)
}

/// What `/mcp` shows.
fn mcp_text<'a>(servers: impl Iterator<Item = &'a ServerStatus>) -> String {
    let mut text = String::from("MCP servers:\n");
    let mut any = false;
    for status in servers {
        any = true;
        let state = status.describe_state();
        text.push_str(&format!("  {}  {state}\n", status.name));
        for tool in &status.tools {
            text.push_str(&format!("      {tool}\n"));
        }
    }
    if !any {
        text.push_str(
            "  none configured. Add one with `tunacode mcp add NAME -- COMMAND ARGS…` \
             (or under \"mcpServers\" in the config file).\n",
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use tunacode_protocol::ConfigSource;

    fn status(name: &str, state: ServerState, tools: &[&str]) -> ServerStatus {
        ServerStatus {
            name: name.into(),
            state,
            source: ConfigSource::User,
            protocol: Some("2025-11-25".into()),
            tools: tools.iter().map(|t| t.to_string()).collect(),
        }
    }

    #[test]
    fn the_summary_counts_servers_to_start_and_the_text_lists_tools() {
        let servers = [
            status("a", ServerState::Ready, &["mcp__a__echo"]),
            status("b", ServerState::Failed("exited at start".into()), &[]),
            status("c", ServerState::Disabled, &[]),
            status("d", ServerState::Starting, &[]),
        ];
        assert_eq!(
            summary(servers.iter()),
            Some(McpSummary {
                ready: 1,
                failed: 1,
                total: 3
            })
        );
        assert_eq!(summary([].iter()), None);
        assert_eq!(
            mcp_text(servers.iter()),
            "MCP servers:\n  a  ready (2025-11-25, 1 tools)\n      mcp__a__echo\n  \
             b  failed: exited at start\n  c  disabled\n  d  starting\n"
        );
    }
}
