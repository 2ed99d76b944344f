//! Connecting to one server over stdio or Streamable HTTP, in either era of the protocol: rmcp's
//! automatic lifecycle asks `server/discover` (2026-07-28) first and falls back to `initialize`
//! (2025-11-25 and before) when the server answers "method not found".

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient};
use tokio::sync::Notify;

use crate::config::{ServerConfig, TransportConfig};
use crate::process::{self, ServerProcess};

/// Our side of a connection: says who we are and hears that a server's tools changed.
#[derive(Debug, Clone)]
pub(crate) struct Handler {
    /// Woken by `notifications/tools/list_changed`.
    pub(crate) tools_changed: Arc<Notify>,
}

impl ClientHandler for Handler {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed.notify_one();
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("tunacode", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// A live connection.
pub(crate) type Service = RunningService<RoleClient, Handler>;

/// A connected server: the protocol session, and the process behind it for stdio servers.
pub(crate) struct Connection {
    pub(crate) service: Service,
    pub(crate) process: Option<ServerProcess>,
}

/// The lifecycle: discover first, `initialize` for servers of the older era.
fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28, ProtocolVersion::V_2025_11_25],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    }
}

/// Connects to `config`'s server (a stdio server runs in `cwd` unless it names its own directory,
/// starting from `base_env` when given, else the agent's environment). The caller bounds the time it
/// may take.
pub(crate) async fn connect(
    config: &ServerConfig,
    cwd: &Path,
    base_env: Option<&[(std::ffi::OsString, std::ffi::OsString)]>,
    handler: Handler,
) -> Result<Connection, String> {
    match &config.transport {
        TransportConfig::Stdio {
            command,
            args,
            env,
            cwd: own,
        } => {
            let dir = own.as_deref().unwrap_or(cwd);
            let (mut process, pipes) =
                process::spawn(command, args, base_env, env, dir, &config.name)?;
            match handler.serve_with_lifecycle(pipes, lifecycle()).await {
                Ok(service) => Ok(Connection {
                    service,
                    process: Some(process),
                }),
                Err(e) => Err(stdio_failure(&mut process, &e.to_string()).await),
            }
        }
        TransportConfig::Http { url, headers } => {
            let transport = http_transport(url, headers)?;
            let service = handler
                .serve_with_lifecycle(transport, lifecycle())
                .await
                .map_err(|e| format!("{url}: {e}"))?;
            Ok(Connection {
                service,
                process: None,
            })
        }
    }
}

/// Why a stdio server failed to start: its exit status and the end of its stderr when it died.
async fn stdio_failure(process: &mut ServerProcess, error: &str) -> String {
    // A process that died closes its pipes a moment before it can be reaped.
    let status = process.exited_within(Duration::from_millis(200)).await;
    let tail = process.stderr_tail();
    let mut message = match status {
        Some(status) => format!("exited at start ({status})"),
        None => error.to_string(),
    };
    if !tail.is_empty() {
        let last: Vec<&str> = tail.lines().rev().take(3).collect();
        let last: Vec<&str> = last.into_iter().rev().collect();
        message.push_str(": ");
        message.push_str(&last.join(" / "));
    }
    message
}

/// A Streamable HTTP transport with the configured headers, on rustls like the provider clients.
fn http_transport(
    url: &str,
    headers: &[(String, String)],
) -> Result<StreamableHttpClientTransport<reqwest::Client>, String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(15))
        .user_agent(concat!("tunacode/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| format!("{url}: {e}"))?;
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let header = reqwest::header::HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| format!("header {name:?}: {e}"))?;
        let value = reqwest::header::HeaderValue::from_str(value)
            .map_err(|e| format!("header {name:?}: {e}"))?;
        custom.insert(header, value);
    }
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
    Ok(StreamableHttpClientTransport::with_client(client, config))
}
