//! [`LspClient`]: one language server over stdio, driven with `async-lsp` (its client main loop and
//! typed requests): initialize it, keep documents in sync (open, then whole-text changes), collect
//! the diagnostics it publishes, and stop it (shutdown, exit, then the process).

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_lsp::router::Router;
use async_lsp::{LanguageServer, ServerSocket};
use lsp_types::notification::PublishDiagnostics;
use lsp_types::request::WorkspaceConfiguration;
use lsp_types::{
    ClientCapabilities, DidChangeTextDocumentParams, DidOpenTextDocumentParams, InitializeParams,
    InitializedParams, PublishDiagnosticsClientCapabilities, TextDocumentClientCapabilities,
    TextDocumentContentChangeEvent, TextDocumentItem, Url, VersionedTextDocumentIdentifier,
    WorkspaceFolder,
};
use tokio::sync::Notify;
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

use crate::diagnostics::{Diagnostic, Published};
use crate::error::LspError;

/// A running language server.
pub struct LspClient {
    server: ServerSocket,
    published: Arc<Mutex<Published>>,
    changed: Arc<Notify>,
    versions: HashMap<Url, i32>,
    child: tokio::process::Child,
    main_loop: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for LspClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LspClient")
            .field("documents", &self.versions.len())
            .finish_non_exhaustive()
    }
}

/// What the router keeps: where published diagnostics go.
struct RouterState {
    published: Arc<Mutex<Published>>,
    changed: Arc<Notify>,
}

impl LspClient {
    /// Talks to `child` (spawned with piped stdin and stdout) as the server of the workspace at
    /// `root`, and initializes it within `limit`.
    pub async fn start(
        mut child: tokio::process::Child,
        root: &Path,
        limit: Duration,
    ) -> Result<Self, LspError> {
        let stdin = child.stdin.take().ok_or(LspError::NoPipes)?;
        let stdout = child.stdout.take().ok_or(LspError::NoPipes)?;
        let published = Arc::new(Mutex::new(Published::default()));
        let changed = Arc::new(Notify::new());
        let state = RouterState {
            published: published.clone(),
            changed: changed.clone(),
        };
        let (main_loop, server) = async_lsp::MainLoop::new_client(|_| router(state));
        let main_loop = tokio::spawn(async move {
            if let Err(e) = main_loop
                .run_buffered(stdout.compat(), stdin.compat_write())
                .await
            {
                tracing::debug!(error = %e, "language server connection ended");
            }
        });
        let mut client = LspClient {
            server,
            published,
            changed,
            versions: HashMap::new(),
            child,
            main_loop,
        };
        match tokio::time::timeout(limit, client.initialize(root)).await {
            Ok(Ok(())) => Ok(client),
            Ok(Err(e)) => {
                client.kill().await;
                Err(e)
            }
            Err(_) => {
                client.kill().await;
                Err(LspError::Timeout("initialize"))
            }
        }
    }

    async fn initialize(&mut self, root: &Path) -> Result<(), LspError> {
        let uri = Url::from_directory_path(root).map_err(|()| LspError::Path(root.into()))?;
        let params = InitializeParams {
            process_id: Some(std::process::id()),
            workspace_folders: Some(vec![WorkspaceFolder {
                uri,
                name: "workspace".into(),
            }]),
            capabilities: ClientCapabilities {
                text_document: Some(TextDocumentClientCapabilities {
                    publish_diagnostics: Some(PublishDiagnosticsClientCapabilities {
                        version_support: Some(true),
                        ..PublishDiagnosticsClientCapabilities::default()
                    }),
                    ..TextDocumentClientCapabilities::default()
                }),
                ..ClientCapabilities::default()
            },
            ..InitializeParams::default()
        };
        self.server.initialize(params).await?;
        self.server.initialized(InitializedParams {})?;
        Ok(())
    }

    /// Sends `text` as the content of `path` (opened the first time, changed after); the mark to
    /// wait for diagnostics from.
    pub fn sync(&mut self, path: &Path, language_id: &str, text: String) -> Result<u64, LspError> {
        let uri = Url::from_file_path(path).map_err(|()| LspError::Path(path.into()))?;
        let mark = self.mark();
        match self.versions.get_mut(&uri) {
            None => {
                self.versions.insert(uri.clone(), 1);
                self.server.did_open(DidOpenTextDocumentParams {
                    text_document: TextDocumentItem {
                        uri,
                        language_id: language_id.to_string(),
                        version: 1,
                        text,
                    },
                })?;
            }
            Some(version) => {
                *version += 1;
                self.server.did_change(DidChangeTextDocumentParams {
                    text_document: VersionedTextDocumentIdentifier {
                        uri,
                        version: *version,
                    },
                    content_changes: vec![TextDocumentContentChangeEvent {
                        range: None,
                        range_length: None,
                        text,
                    }],
                })?;
            }
        }
        Ok(mark)
    }

    /// The count of publications so far.
    pub fn mark(&self) -> u64 {
        self.lock().count
    }

    /// Waits for the diagnostics of `path` published after `mark`, until none came for `settle`
    /// (a server may publish syntax errors first and the rest later), at most `limit`; `None` when
    /// none came in time.
    pub async fn wait(
        &self,
        path: &Path,
        mark: u64,
        (settle, limit): (Duration, Duration),
    ) -> Option<Vec<Diagnostic>> {
        let deadline = tokio::time::Instant::now() + limit;
        let mut seen: Option<u64> = None;
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            // Enabled before the state is read, so a publication in between still wakes it.
            notified.as_mut().enable();
            let latest = self
                .lock()
                .latest(path)
                .filter(|(at, _)| *at > mark)
                .map(|(at, _)| at);
            if latest.is_some() && latest != seen {
                seen = latest;
                let quiet = tokio::time::Instant::now() + settle;
                let until = quiet.min(deadline);
                if tokio::time::timeout_at(until, notified.as_mut())
                    .await
                    .is_err()
                {
                    return self.lock().latest(path).map(|(_, d)| d);
                }
                continue;
            }
            if tokio::time::timeout_at(deadline, notified.as_mut())
                .await
                .is_err()
            {
                return seen.and_then(|_| self.lock().latest(path).map(|(_, d)| d));
            }
        }
    }

    /// The files whose diagnostics were published after `mark`, with them.
    pub fn published_since(&self, mark: u64) -> Vec<(PathBuf, Vec<Diagnostic>)> {
        self.lock().since(mark)
    }

    /// Whether the server is still running.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None)) && !self.main_loop.is_finished()
    }

    /// Stops the server: `shutdown` and `exit` (within a second), then the process is killed.
    pub async fn stop(mut self) {
        let polite = async {
            if self.server.shutdown(()).await.is_ok() {
                let _ = self.server.exit(());
            }
            let _ = self.child.wait().await;
        };
        let _ = tokio::time::timeout(Duration::from_secs(1), polite).await;
        self.kill().await;
    }

    async fn kill(&mut self) {
        let _ = self.child.kill().await;
        self.main_loop.abort();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Published> {
        self.published.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Answers what a server asks of its client (the configuration: none; anything else: null) and
/// keeps what it publishes.
fn router(state: RouterState) -> Router<RouterState> {
    let mut router = Router::new(state);
    router
        .request::<WorkspaceConfiguration, _>(|_, params| {
            let none = vec![serde_json::Value::Null; params.items.len()];
            async move { Ok(none) }
        })
        .unhandled_request(|_, _| async { Ok(serde_json::Value::Null) })
        .notification::<PublishDiagnostics>(|state, params| {
            if let Ok(path) = params.uri.to_file_path() {
                let diagnostics = params.diagnostics.iter().map(Diagnostic::from).collect();
                state
                    .published
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .record(path, diagnostics);
                state.changed.notify_waiters();
            }
            ControlFlow::Continue(())
        })
        .unhandled_notification(|_, _| ControlFlow::Continue(()))
        .unhandled_event(|_, _| ControlFlow::Continue(()));
    router
}
