//! [`LspManager`]: the runtime's language servers. A server starts the first time a file it covers
//! is edited (in the commands' sandbox, through `tools::spawn_server`), is kept for the runtime's
//! life and stopped with it; one that cannot start or that dies is said once and not started again.
//! Before an edit it is given the file as it is; after, as it became; and the errors it then
//! reports that the file did not have are the edit's news.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Mutex;
use tunacode_lsp::{Diagnostic, LspClient, new_errors};
use tunacode_protocol::{AgentEvent, NoticeLevel};
use tunacode_store::LspConfig;
use tunacode_tools::ExecPolicy;

use super::report::{EditReport, FileErrors};
use super::servers::{ServerSpec, server_specs};
use crate::events::EventSink;

/// How long a server may take to start.
const START_LIMIT: Duration = Duration::from_secs(30);
/// How long a server may stay quiet after a publication before its word is taken as complete.
const SETTLE: Duration = Duration::from_millis(150);

enum Slot {
    Ready(Box<LspClient>),
    Failed,
}

/// The language servers of one runtime.
pub struct LspManager {
    root: PathBuf,
    exec: Arc<ExecPolicy>,
    specs: Vec<ServerSpec>,
    wait: Duration,
    events: EventSink,
    slots: Mutex<HashMap<String, Slot>>,
    /// Each file's diagnostics as last seen (what "new" is measured against).
    seen: Mutex<HashMap<PathBuf, Vec<Diagnostic>>>,
}

impl std::fmt::Debug for LspManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LspManager")
            .field("servers", &self.specs.len())
            .finish_non_exhaustive()
    }
}

impl LspManager {
    /// The servers `config` puts in force for the workspace at `root`; their commands run under
    /// `exec`; failures are said on `events`.
    pub fn new(
        root: PathBuf,
        exec: Arc<ExecPolicy>,
        config: &LspConfig,
        events: EventSink,
    ) -> Self {
        LspManager {
            root,
            exec,
            specs: server_specs(config),
            wait: Duration::from_millis(config.wait_ms.max(1)),
            events,
            slots: Mutex::new(HashMap::new()),
            seen: Mutex::new(HashMap::new()),
        }
    }

    /// Whether some server covers `path`.
    pub fn covers(&self, path: &Path) -> bool {
        !self.candidates(path).is_empty()
    }

    /// Before `path` is edited: its diagnostics as it is now (from a server given its content);
    /// nothing when no server covers it or none can start.
    pub async fn before_edit(&self, path: &Path) -> Option<Vec<Diagnostic>> {
        if let Some(known) = self.seen.lock().await.get(path) {
            return Some(known.clone());
        }
        let text = tokio::fs::read_to_string(path).await.unwrap_or_default();
        let mut slots = self.slots.lock().await;
        let (spec, client) = self.client(&mut slots, path).await?;
        let mark = client.sync(path, &spec.language_id, text).ok()?;
        let found = client.wait(path, mark, (SETTLE, self.wait)).await?;
        drop(slots);
        self.seen
            .lock()
            .await
            .insert(path.to_path_buf(), found.clone());
        Some(found)
    }

    /// After the files of `edited` changed: the new errors of each (and of the other files their
    /// server published meanwhile), and the servers that did not answer in time.
    pub async fn after_edit(&self, edited: &[PathBuf]) -> EditReport {
        let mut report = EditReport::default();
        for path in edited {
            let Ok(text) = tokio::fs::read_to_string(path).await else {
                continue;
            };
            let mut slots = self.slots.lock().await;
            let Some((spec, client)) = self.client(&mut slots, path).await else {
                continue;
            };
            let Ok(mark) = client.sync(path, &spec.language_id, text) else {
                continue;
            };
            let name = spec.name.clone();
            let found = client.wait(path, mark, (SETTLE, self.wait)).await;
            let others = client.published_since(mark);
            drop(slots);
            match found {
                Some(after) => self.compare(path, after, &mut report).await,
                None if !report.incomplete.contains(&name) => report.incomplete.push(name),
                None => {}
            }
            for (other, after) in others.into_iter().filter(|(p, _)| !edited.contains(p)) {
                self.compare(&other, after, &mut report).await;
            }
        }
        report
    }

    /// Stops every server.
    pub async fn stop(&self) {
        let slots = std::mem::take(&mut *self.slots.lock().await);
        for slot in slots.into_values() {
            if let Slot::Ready(client) = slot {
                (*client).stop().await;
            }
        }
    }

    /// Adds `path`'s new errors (against what was last seen of it, when anything was) to `report`.
    async fn compare(&self, path: &Path, after: Vec<Diagnostic>, report: &mut EditReport) {
        let mut seen = self.seen.lock().await;
        let before = seen.insert(path.to_path_buf(), after.clone());
        let Some(before) = before else {
            return;
        };
        let errors = new_errors(&before, &after);
        if !errors.is_empty() && !report.files.iter().any(|f| f.path == path) {
            report.files.push(FileErrors {
                path: path.to_path_buf(),
                errors,
            });
        }
    }

    fn candidates(&self, path: &Path) -> Vec<&ServerSpec> {
        let Some(ext) = path.extension().and_then(|e| e.to_str()) else {
            return Vec::new();
        };
        self.specs
            .iter()
            .filter(|s| s.extensions.iter().any(|x| x == ext))
            .collect()
    }

    /// The running server for `path`, started if need be (the first of its candidates that runs).
    async fn client<'a>(
        &'a self,
        slots: &'a mut HashMap<String, Slot>,
        path: &Path,
    ) -> Option<(&'a ServerSpec, &'a mut LspClient)> {
        for spec in self.candidates(path) {
            if !slots.contains_key(&spec.name) {
                let slot = self.start(spec).await;
                slots.insert(spec.name.clone(), slot);
            }
            if let Some(Slot::Ready(client)) = slots.get_mut(&spec.name)
                && !client.running()
            {
                self.say(format!(
                    "The language server {} stopped; its diagnostics are off for this session.",
                    spec.name
                ));
                slots.insert(spec.name.clone(), Slot::Failed);
            }
            if matches!(slots.get(&spec.name), Some(Slot::Ready(_))) {
                let Some(Slot::Ready(client)) = slots.get_mut(&spec.name) else {
                    return None;
                };
                return Some((spec, client.as_mut()));
            }
        }
        None
    }

    async fn start(&self, spec: &ServerSpec) -> Slot {
        let (exec, argv, root) = (self.exec.clone(), spec.command.clone(), self.root.clone());
        let spawned =
            tokio::task::spawn_blocking(move || tunacode_tools::spawn_server(&exec, &argv, &root))
                .await;
        let child = match spawned {
            Ok(Ok(child)) => child,
            Ok(Err(e)) => return self.failed(spec, e.to_string()),
            Err(e) => return self.failed(spec, e.to_string()),
        };
        match LspClient::start(child, &self.root, START_LIMIT).await {
            Ok(client) => Slot::Ready(Box::new(client)),
            Err(e) => self.failed(spec, e.to_string()),
        }
    }

    /// A server that could not start: said once when the config names it; an implied one whose
    /// program is missing is skipped quietly.
    fn failed(&self, spec: &ServerSpec, why: String) -> Slot {
        let missing = why.contains("No such file or directory");
        if spec.configured || !missing {
            self.say(format!(
                "The language server {} could not start ({why}); edits get no diagnostics from it.",
                spec.name
            ));
        }
        Slot::Failed
    }

    fn say(&self, message: String) {
        self.events.emit(AgentEvent::Notice {
            level: NoticeLevel::Warning,
            message,
        });
    }
}
