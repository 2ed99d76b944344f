//! [`TurnPoint`]: the request's node in the session's tree. The prompt gets its node when the
//! request starts (the redo point goes: a new prompt ends it). Before the first call that may
//! change the workspace, the workspace is recorded (waiting at most `settings.rewind.
//! snapshot_wait_ms`, then the snapshot finishes in the background while the turn goes on), and
//! before each batch, the pre-images of the files it names that the snapshot may lack (ignored
//! ones, and all of them while the snapshot is still being taken). When the request ends, the
//! before-snapshot is completed with the pre-images and the workspace is recorded again as the turn
//! left it; both go into the node with the files the turn changed. Cancelling the request kills a
//! snapshot still running before the first change.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tunacode_protocol::{AgentEvent, NoticeLevel, ToolCallPart};
use tunacode_store::{Snapshot, TurnNode, now_rfc3339};
use tunacode_tools::{ToolKind, ToolSet};

use crate::agent::Agent;
use crate::checkpoints::{CheckpointError, Checkpoints, Stop};
use crate::rewind::PreImage;

type Taking = JoinHandle<Result<Snapshot, CheckpointError>>;

/// The workspace before the turn changed it.
#[derive(Debug, Default)]
enum Before {
    /// Nothing changed it yet.
    #[default]
    NotYet,
    /// Still being recorded, in the background.
    Taking(Taking),
    /// Recorded.
    Taken(Snapshot),
    /// Could not be recorded (said).
    Failed,
}

/// This request's node and what it recorded so far.
#[derive(Debug, Default)]
pub(super) struct TurnPoint {
    /// The node's marker (`None`: a compaction, which has no prompt).
    marker: Option<String>,
    before: Before,
    /// Files the turn's writes touch, before their first write.
    images: HashMap<String, PreImage>,
    /// Every file the turn's calls named (recorded after the turn even when ignored).
    touched: BTreeSet<String>,
    /// The pre-images taken before the turn's first batch ran (nothing had changed yet).
    early: HashSet<String>,
    /// Batches that were about to run so far.
    batches: u32,
}

impl TurnPoint {
    /// Adds the prompt's node (`typed`: what the user typed) and ends the redo point; the marker to
    /// write on the prompt's part.
    pub(super) async fn begin(&mut self, agent: &Agent, typed: &str) -> String {
        // The last turn's snapshot, still finishing in the background, ends before this turn's
        // commands can run (a command's sandbox takes what changes in the data dir for its own).
        if let Some(store) = &agent.checkpoints {
            drop(store.turn_lock().lock().await);
        }
        let marker = crate::rewind::new_marker();
        {
            let mut session = agent.session.lock();
            session.tree.redo = None;
            session.tree.nodes.push(TurnNode {
                text: typed.to_string(),
                time: now_rfc3339(),
                marker: marker.clone(),
                before: None,
                after: None,
                files: Vec::new(),
            });
        }
        crate::rewind::save_tree(agent.store.as_ref(), &agent.session).await;
        self.marker = Some(marker.clone());
        marker
    }

    /// Before a batch: the pre-images of the files it writes, and the snapshot before the turn's
    /// first change. A failure is said (rewind will not cover this turn) and the request goes on.
    pub(super) async fn before_batch(
        &mut self,
        agent: &Agent,
        cancel: &CancellationToken,
        (tools, calls): (&ToolSet, &[ToolCallPart]),
    ) {
        let Some(store) = agent.checkpoints.clone() else {
            return;
        };
        if self.marker.is_none() || !calls.iter().any(|c| may_change(tools, c)) {
            return;
        }
        let paths = touched_paths(agent, tools, calls);
        self.touched.extend(paths.iter().cloned());
        let first = self.batches == 0;
        self.batches += 1;
        if matches!(self.before, Before::NotYet) {
            self.before = take_before(agent, store.clone(), paths.clone(), cancel).await;
        }
        let late = match self.before {
            Before::Taken(_) => false,
            Before::Taking(_) => true,
            Before::NotYet | Before::Failed => return,
        };
        if late && runs_commands(tools, calls) {
            self.finish_before(agent).await;
        }
        let new: Vec<String> = paths
            .into_iter()
            .filter(|p| !self.images.contains_key(p))
            .collect();
        if new.is_empty() {
            return;
        }
        // The snapshot holds every file it did not ignore; the rest (and all of them while it is
        // still being taken) get a pre-image, before the batch writes them.
        let images = tokio::task::spawn_blocking(move || {
            let (root, exclude) = (store.work_tree(), &store.limits.exclude);
            let needed: Vec<String> = new
                .into_iter()
                .filter(|p| late || crate::rewind::possibly_ignored(root, p, exclude))
                .collect();
            store.pre_images(&needed)
        })
        .await;
        match images {
            Ok(Ok(images)) => {
                if first {
                    self.early.extend(images.keys().cloned());
                }
                self.images.extend(images);
            }
            Ok(Err(e)) => warn(agent, &e.to_string()),
            Err(e) => warn(agent, &e.to_string()),
        }
    }

    /// Waits for the snapshot still being taken: a command must not run beside it (the sandbox
    /// would take the store's changes in the data dir for the command's). It stays late.
    async fn finish_before(&mut self, agent: &Agent) {
        let Before::Taking(handle) = std::mem::take(&mut self.before) else {
            return;
        };
        self.before = match handle.await {
            Ok(Ok(snapshot)) => Before::Taken(Snapshot {
                late: true,
                ..snapshot
            }),
            Ok(Err(e)) => {
                warn(agent, &e.to_string());
                Before::Failed
            }
            Err(e) => {
                warn(agent, &e.to_string());
                Before::Failed
            }
        };
    }

    /// The request ended: completes the node, waiting at most the snapshot bound (so the files the
    /// user edits once the request has ended are not taken for the turn's); past it the snapshot
    /// finishes in the background, and a rewind, and the runtime's end, wait for it.
    pub(super) async fn end(&mut self, agent: &Agent) {
        let (Some(store), Some(marker)) = (agent.checkpoints.clone(), self.marker.take()) else {
            return;
        };
        let before = match std::mem::take(&mut self.before) {
            Before::Taking(handle) => Err(handle),
            Before::Taken(snapshot) => Ok(snapshot),
            Before::NotYet | Before::Failed => return,
        };
        let guard = store.turn_lock().lock_owned().await;
        let work = Completion {
            store: store.clone(),
            session: agent.session.clone(),
            sessions: agent.store.clone(),
            marker,
            images: std::mem::take(&mut self.images),
            early: std::mem::take(&mut self.early),
            touched: std::mem::take(&mut self.touched).into_iter().collect(),
        };
        let events = agent.events.clone();
        let task = tokio::spawn(async move {
            let _held = guard;
            if let Err(failure) = work.run(before).await {
                events.emit(AgentEvent::Notice {
                    level: NoticeLevel::Warning,
                    message: format!("Rewind will not cover this prompt's files: {failure}"),
                });
            }
        });
        let wait = Duration::from_millis(store.limits.snapshot_wait_ms);
        let _ = tokio::time::timeout(wait, task).await;
    }
}

/// Records the workspace before the turn's first change, waiting at most the bound.
async fn take_before(
    agent: &Agent,
    store: Arc<Checkpoints>,
    forced: Vec<String>,
    cancel: &CancellationToken,
) -> Before {
    let (session, number) = {
        let s = agent.session.lock();
        (s.id.clone(), s.tree.nodes.len())
    };
    let stop = Stop::default();
    let wait = Duration::from_millis(store.limits.snapshot_wait_ms);
    let mut taking: Taking = {
        let stop = stop.clone();
        let label = format!("Before prompt {number}");
        tokio::task::spawn_blocking(move || store.take(&session, &label, &forced, &stop))
    };
    tokio::select! {
        taken = tokio::time::timeout(wait, &mut taking) => match taken {
            Ok(Ok(Ok(snapshot))) => Before::Taken(snapshot),
            Ok(Ok(Err(e))) => { warn(agent, &e.to_string()); Before::Failed }
            Ok(Err(e)) => { warn(agent, &e.to_string()); Before::Failed }
            Err(_) => {
                agent.events.emit(AgentEvent::Notice {
                    level: NoticeLevel::Info,
                    message: format!(
                        "Recording the workspace for rewind takes more than {} ms; the turn goes \
                         on and the snapshot finishes in the background.",
                        wait.as_millis()
                    ),
                });
                Before::Taking(taking)
            }
        },
        _ = cancel.cancelled() => {
            // Its git processes are killed with their group; wait for the thread to see it.
            stop.stop();
            let _ = taking.await;
            Before::Failed
        }
    }
}

/// What completes a turn's node once the request ended.
struct Completion {
    store: Arc<Checkpoints>,
    session: crate::session::SessionHandle,
    sessions: Option<tunacode_store::SessionStore>,
    marker: String,
    images: HashMap<String, PreImage>,
    early: HashSet<String>,
    touched: Vec<String>,
}

impl Completion {
    async fn run(self, before: Result<Snapshot, Taking>) -> Result<(), String> {
        let before = match before {
            Ok(snapshot) => snapshot,
            Err(handle) => match handle.await {
                Ok(Ok(snapshot)) => Snapshot {
                    late: true,
                    ..snapshot
                },
                Ok(Err(e)) => return Err(e.to_string()),
                Err(e) => return Err(e.to_string()),
            },
        };
        let session_id = self.session.lock().id.clone();
        let (store, images, early, touched) =
            (self.store.clone(), self.images, self.early, self.touched);
        let recorded = tokio::task::spawn_blocking(move || {
            let commit = store.amend(&before, &images, &early)?;
            let before = Snapshot { commit, ..before };
            // The before-snapshot is kept even when the after one fails (a rewind then counts up to
            // the workspace as it is).
            let after = store
                .take(&session_id, "After a prompt", &touched, &Stop::default())
                .and_then(|after| Ok((store.changes(&before.commit, &after.commit)?, after)));
            Ok::<_, CheckpointError>((before, after))
        })
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
        let (before, after) = recorded;
        let failure = after.as_ref().err().map(|e| e.to_string());
        {
            let mut session = self.session.lock();
            let Some(node) = session
                .tree
                .nodes
                .iter_mut()
                .find(|n| n.marker == self.marker)
            else {
                return Ok(());
            };
            node.before = Some(before);
            if let Ok((files, after)) = after {
                node.after = Some(after);
                node.files = files.into_iter().map(|c| c.path).collect();
            }
        }
        crate::rewind::save_tree(self.sessions.as_ref(), &self.session).await;
        failure.map_or(Ok(()), Err)
    }
}

fn warn(agent: &Agent, failure: &str) {
    tracing::warn!(%failure, "rewind snapshot");
    agent.events.emit(AgentEvent::Notice {
        level: NoticeLevel::Warning,
        message: format!("No rewind snapshot for this prompt: {failure}"),
    });
}

/// Whether a call of the batch runs a program (in the sandbox, which checks the data dir after).
fn runs_commands(tools: &ToolSet, calls: &[ToolCallPart]) -> bool {
    calls.iter().any(|call| match tools.get(&call.tool_name) {
        Some(tool) => match call.args_object() {
            Ok(args) => tool.classify(&args) == ToolKind::Execute,
            Err(_) => tool.kind() == ToolKind::Execute,
        },
        None => false,
    })
}

fn may_change(tools: &ToolSet, call: &ToolCallPart) -> bool {
    let Some(tool) = tools.get(&call.tool_name) else {
        return false;
    };
    match call.args_object() {
        Ok(args) => tool.may_change_files(&args),
        Err(_) => false,
    }
}

/// The workspace files the batch's changing calls name: a write's targets, and the words of a
/// command that name an existing file (`sed -i … .env`), workspace-relative.
fn touched_paths(agent: &Agent, tools: &ToolSet, calls: &[ToolCallPart]) -> Vec<String> {
    let root = agent.workspace.root();
    let mut paths = BTreeSet::new();
    for call in calls.iter().filter(|c| may_change(tools, c)) {
        let (Some(tool), Ok(args)) = (tools.get(&call.tool_name), call.args_object()) else {
            continue;
        };
        for path in tool.target_paths(&args, &agent.workspace) {
            if let Ok(rel) = path.strip_prefix(root) {
                paths.insert(rel.to_string_lossy().into_owned());
            }
        }
        let command = args.get("command").and_then(|c| c.as_str()).unwrap_or("");
        // Words that name no file are left out when their pre-images are taken.
        for word in shell_words::split(command).unwrap_or_default() {
            if crate::rewind::is_plain(&word) {
                paths.insert(word);
            }
        }
    }
    paths.into_iter().collect()
}
