//! The servers of a session: each started in a task of its own, in parallel, never awaited by the
//! session (a server that is ready is offered from the next model request on), its state reported as
//! it changes, its tools re-listed when it says they changed, and all stopped cleanly at shutdown.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{ProtocolVersion, SubscriptionFilter};
use rmcp::service::Subscription;
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tunacode_tools::{Tool, ToolSource};

use crate::config::{ConfigSource, ServerConfig, ServerEntry};
use crate::connect::{self, Connection, Handler};
use crate::names::server_prefix;
use crate::tool::McpTool;

/// How long a stopping server gets after its stdin closes, and again after SIGTERM.
const STOP_GRACE: Duration = Duration::from_millis(1500);

pub use tunacode_protocol::{ServerState, ServerStatus};

/// Receives every change of a server's status.
pub type StatusSink = Arc<dyn Fn(ServerStatus) + Send + Sync>;

struct Slot {
    status: ServerStatus,
    tools: Vec<Arc<dyn Tool>>,
    always_allow: Vec<String>,
}

struct Inner {
    cwd: PathBuf,
    /// The environment stdio servers start from (`None`: the agent's own), before their `env`.
    env: Option<Arc<Vec<(OsString, OsString)>>>,
    slots: Mutex<BTreeMap<String, Slot>>,
    sink: StatusSink,
    stop: CancellationToken,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

/// The MCP servers of a runtime. Cheap to clone.
#[derive(Clone)]
pub struct McpManager {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for McpManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpManager")
            .field("servers", &self.statuses())
            .finish()
    }
}

impl McpManager {
    /// A manager whose stdio servers run in `cwd` with the agent's environment, reporting to `sink`.
    pub fn new(cwd: &Path, sink: StatusSink) -> Self {
        Self::with_env(cwd, sink, None)
    }

    /// A manager whose stdio servers run in `cwd` starting from `env` (the environment commands get:
    /// the agent's without its secrets) plus each server's own `env`, reporting to `sink`.
    pub fn with_env(
        cwd: &Path,
        sink: StatusSink,
        env: Option<Arc<Vec<(OsString, OsString)>>>,
    ) -> Self {
        McpManager {
            inner: Arc::new(Inner {
                cwd: cwd.to_path_buf(),
                env,
                slots: Mutex::new(BTreeMap::new()),
                sink,
                stop: CancellationToken::new(),
                tasks: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Starts every usable entry in the background (on the current tokio runtime) and returns at
    /// once; disabled and malformed entries are reported as such. A name already running is skipped.
    pub fn start(&self, entries: Vec<ServerEntry>) {
        for entry in entries {
            if self.lock().contains_key(&entry.name) {
                continue;
            }
            let source = entry
                .config
                .as_ref()
                .map_or(ConfigSource::User, |c| c.source);
            let state = match (&entry.config, entry.disabled) {
                (_, true) => ServerState::Disabled,
                (Err(e), false) => ServerState::Failed(e.clone()),
                (Ok(_), false) => ServerState::Starting,
            };
            let always_allow = entry
                .config
                .as_ref()
                .map(|c| c.always_allow.clone())
                .unwrap_or_default();
            self.set(&entry.name, source, state, always_allow);
            if let (Ok(config), false) = (entry.config, entry.disabled) {
                let task = tokio::spawn(run_server(self.clone(), config));
                if let Ok(mut tasks) = self.inner.tasks.lock() {
                    tasks.push(task);
                }
            }
        }
    }

    /// Every server's status, by name.
    pub fn statuses(&self) -> Vec<ServerStatus> {
        self.lock().values().map(|s| s.status.clone()).collect()
    }

    /// Whether the config lets `tool` (an offered name) run without asking: its server's
    /// `alwaysAllow` names it (by its name on the server) or is `"*"`.
    pub fn always_allowed(&self, tool: &str) -> bool {
        self.lock().values().any(|slot| {
            slot.tools.iter().any(|t| t.name() == tool)
                && slot.always_allow.iter().any(|allowed| {
                    allowed == "*"
                        || crate::names::qualified_name(&slot.status.name, allowed) == tool
                })
        })
    }

    /// The server an offered tool name belongs to, if it is an MCP tool.
    pub fn server_of(&self, tool: &str) -> Option<String> {
        self.lock()
            .values()
            .find(|slot| {
                tool.starts_with(&server_prefix(&slot.status.name))
                    && slot.tools.iter().any(|t| t.name() == tool)
            })
            .map(|slot| slot.status.name.clone())
    }

    /// Stops every server: closes its connection (stdin first), then SIGTERM, then SIGKILL to its
    /// process group. Waits for all of them.
    pub async fn shutdown(&self) {
        self.inner.stop.cancel();
        let tasks: Vec<JoinHandle<()>> = self
            .inner
            .tasks
            .lock()
            .map(|mut t| std::mem::take(&mut *t))
            .unwrap_or_default();
        for task in tasks {
            let _ = task.await;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Slot>> {
        self.inner
            .slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn set(&self, name: &str, source: ConfigSource, state: ServerState, always_allow: Vec<String>) {
        let status = ServerStatus {
            name: name.to_string(),
            state,
            source,
            protocol: None,
            tools: Vec::new(),
        };
        self.lock().insert(
            name.to_string(),
            Slot {
                status: status.clone(),
                tools: Vec::new(),
                always_allow,
            },
        );
        (self.inner.sink)(status);
    }

    /// Changes a server's state (and tools), then reports it.
    fn update(&self, name: &str, change: impl FnOnce(&mut Slot)) {
        let status = {
            let mut slots = self.lock();
            let Some(slot) = slots.get_mut(name) else {
                return;
            };
            change(slot);
            slot.status.tools = slot.tools.iter().map(|t| t.name().to_string()).collect();
            slot.status.clone()
        };
        (self.inner.sink)(status);
    }

    fn fail(&self, name: &str, reason: String) {
        self.update(name, |slot| {
            slot.status.state = ServerState::Failed(reason);
            slot.tools.clear();
        });
    }
}

impl ToolSource for McpManager {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.lock()
            .values()
            .flat_map(|slot| slot.tools.iter().cloned())
            .collect()
    }
}

/// One server's life: connect, list its tools, follow changes, stop.
async fn run_server(manager: McpManager, config: ServerConfig) {
    let changed = Arc::new(Notify::new());
    let handler = Handler {
        tools_changed: changed.clone(),
    };
    let stop = manager.inner.stop.clone();
    let connecting = tokio::time::timeout(
        config.startup_timeout,
        connect::connect(
            &config,
            &manager.inner.cwd,
            manager.inner.env.as_deref().map(Vec::as_slice),
            handler,
        ),
    );
    let connection = tokio::select! {
        _ = stop.cancelled() => return,
        result = connecting => match result {
            Err(_) => {
                let secs = config.startup_timeout.as_secs_f64();
                return manager.fail(&config.name, format!("did not start within {secs} s"));
            }
            Ok(Err(e)) => return manager.fail(&config.name, e),
            Ok(Ok(connection)) => connection,
        },
    };
    serve(&manager, &config, connection, &changed).await;
}

/// Keeps a connected server's tools current until shutdown or until it goes away.
async fn serve(
    manager: &McpManager,
    config: &ServerConfig,
    mut conn: Connection,
    changed: &Notify,
) {
    let protocol = conn
        .service
        .peer()
        .peer_info()
        .map(|info| info.protocol_version.to_string());
    if let Err(e) = list_tools(manager, config, &conn, protocol.clone()).await {
        manager.fail(&config.name, e);
        return close(conn).await;
    }
    let mut subscription = tools_subscription(&conn).await;
    let stop = manager.inner.stop.clone();
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = changed.notified() => {}
            Some(()) = next_change(&mut subscription) => {}
            _ = exited(&mut conn) => {
                let why = match conn.process.as_ref().map(|p| p.stderr_tail()) {
                    Some(tail) if !tail.is_empty() => format!("the server exited: {tail}"),
                    _ => "the server exited".to_string(),
                };
                manager.fail(&config.name, why);
                return close(conn).await;
            }
        }
        if let Err(e) = list_tools(manager, config, &conn, protocol.clone()).await {
            tracing::warn!(target: "mcp", server = %config.name, "re-listing tools failed: {e}");
        }
    }
    close(conn).await;
    manager.update(&config.name, |slot| {
        slot.status.state = ServerState::Stopped;
        slot.tools.clear();
    });
}

/// Lists the server's tools and offers them.
async fn list_tools(
    manager: &McpManager,
    config: &ServerConfig,
    conn: &Connection,
    protocol: Option<String>,
) -> Result<(), String> {
    let peer = conn.service.peer().clone();
    let listed = tokio::time::timeout(config.startup_timeout, peer.list_all_tools())
        .await
        .map_err(|_| "did not list its tools in time".to_string())?
        .map_err(|e| format!("listing its tools failed: {e}"))?;
    let tools: Vec<Arc<dyn Tool>> = listed
        .iter()
        .map(|tool| Arc::new(McpTool::new(config, tool, peer.clone())) as Arc<dyn Tool>)
        .collect();
    manager.update(&config.name, |slot| {
        slot.status.state = ServerState::Ready;
        slot.status.protocol = protocol;
        slot.tools = tools;
    });
    Ok(())
}

/// On a 2026-07-28 connection, list changes come through a subscription the client opens.
async fn tools_subscription(conn: &Connection) -> Option<Subscription> {
    let peer = conn.service.peer();
    let info = peer.peer_info()?;
    let listens = info.protocol_version >= ProtocolVersion::V_2026_07_28
        && info
            .capabilities
            .tools
            .as_ref()
            .and_then(|t| t.list_changed)
            .unwrap_or(false);
    if !listens {
        return None;
    }
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    peer.listen(filter).await.ok()
}

/// The next list change of a subscription; pending forever without one (or once it ended).
async fn next_change(subscription: &mut Option<Subscription>) -> Option<()> {
    match subscription {
        Some(sub) => match sub.next().await {
            Ok(Some(_)) => Some(()),
            _ => {
                *subscription = None;
                std::future::pending().await
            }
        },
        None => std::future::pending().await,
    }
}

/// Resolves when a stdio server's process exits or the connection closes.
async fn exited(conn: &mut Connection) {
    match conn.process.as_mut() {
        Some(process) => process.wait().await,
        None => loop {
            if conn.service.peer().is_transport_closed() {
                return;
            }
            // The HTTP transport has no exit to wait on: look again now and then.
            tokio::time::sleep(Duration::from_secs(1)).await;
        },
    }
}

/// Closes the connection (for stdio: stdin first), then stops the process.
async fn close(mut conn: Connection) {
    let _ = conn.service.close_with_timeout(STOP_GRACE).await;
    if let Some(process) = conn.process.take() {
        process.stop(STOP_GRACE).await;
    }
}
