//! The sessions a connection has open: each one's command queue and task, and the ones being closed.
//! Closing takes a session out at once (later requests for it are refused), tells it to stop (it ends
//! its prompts as cancelled, stops its runtime, which saves a running request) and waits for its task;
//! a load of the same session, or a second close, waits for that too.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::command::Command;

/// A session task to wait for (whoever waits first takes the handle; later ones find it done).
type Stopping = Arc<tokio::sync::Mutex<Option<JoinHandle<()>>>>;

/// An open session.
struct Open {
    commands: mpsc::UnboundedSender<Command>,
    /// Set when it is being closed: prompts still in its queue end without running.
    closing: Arc<AtomicBool>,
    /// Its task, once started.
    task: Stopping,
}

/// The open sessions, by id.
#[derive(Default)]
pub(crate) struct OpenSessions {
    open: Mutex<HashMap<String, Open>>,
    stopping: Mutex<HashMap<String, Stopping>>,
    /// Held while a session opens by load or closes, so the two never overlap for one session.
    lifecycle: tokio::sync::Mutex<()>,
}

/// What a session needs from the registry: its queue and whether it is being closed.
pub(crate) struct Registered {
    /// Where the connection sends the session's commands.
    pub(crate) commands: mpsc::UnboundedReceiver<Command>,
    /// A weak sender into it, for answers coming back from the session's own tasks.
    pub(crate) answers: mpsc::WeakUnboundedSender<Command>,
    /// Set when it is being closed.
    pub(crate) closing: Arc<AtomicBool>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl OpenSessions {
    /// Registers session `id` (its requests are routed from now on, and wait in its queue until its
    /// task starts).
    pub(crate) fn register(&self, id: &str) -> Registered {
        let (commands, queue) = mpsc::unbounded_channel();
        let closing = Arc::new(AtomicBool::new(false));
        let answers = commands.downgrade();
        let open = Open {
            commands,
            closing: closing.clone(),
            task: Arc::new(tokio::sync::Mutex::new(None)),
        };
        if let Some(previous) = lock(&self.open).insert(id.to_string(), open) {
            // Registering an id twice is a bug upstream; the earlier session still stops cleanly.
            Self::tell_to_stop(&previous);
        }
        Registered {
            commands: queue,
            answers,
            closing,
        }
    }

    /// Records the task of session `id` (open, or closed before its task started: then the task
    /// stops by itself, having `Close` first in its queue).
    pub(crate) fn started(&self, id: &str, task: JoinHandle<()>) {
        let slot = lock(&self.open)
            .get(id)
            .map(|open| open.task.clone())
            .or_else(|| lock(&self.stopping).get(id).cloned());
        if let Some(slot) = slot
            && let Ok(mut slot) = slot.try_lock()
        {
            *slot = Some(task);
        }
    }

    /// The queue of session `id`, when it is open.
    pub(crate) fn queue(&self, id: &str) -> Option<mpsc::UnboundedSender<Command>> {
        lock(&self.open).get(id).map(|open| open.commands.clone())
    }

    /// The ids of the open sessions.
    pub(crate) fn ids(&self) -> Vec<String> {
        lock(&self.open).keys().cloned().collect()
    }

    /// Takes session `id` out of the open ones and tells it to stop; what to wait for (also when it
    /// was already being closed).
    pub(crate) fn begin_close(&self, id: &str) -> Option<Stopping> {
        if let Some(open) = lock(&self.open).remove(id) {
            Self::tell_to_stop(&open);
            lock(&self.stopping).insert(id.to_string(), open.task.clone());
        }
        lock(&self.stopping).get(id).cloned()
    }

    fn tell_to_stop(open: &Open) {
        open.closing.store(true, Ordering::SeqCst);
        let _ = open.commands.send(Command::Close);
    }

    /// Waits until a closing session's task has ended.
    pub(crate) async fn finish_close(&self, id: &str, stopping: Stopping) {
        if let Some(task) = stopping.lock().await.take() {
            let _ = task.await;
        }
        let mut all = lock(&self.stopping);
        if all.get(id).is_some_and(|s| Arc::ptr_eq(s, &stopping)) {
            all.remove(id);
        }
    }

    /// Closes session `id` (open or being closed) and waits until it has stopped.
    pub(crate) async fn close(&self, id: &str) {
        let _lifecycle = self.lifecycle.lock().await;
        self.close_unlocked(id).await;
    }

    /// [`Self::close`] for a caller that holds the lifecycle lock.
    pub(crate) async fn close_unlocked(&self, id: &str) {
        if let Some(stopping) = self.begin_close(id) {
            self.finish_close(id, stopping).await;
        }
    }

    /// The lifecycle lock (a load holds it from closing the old session to registering the new).
    pub(crate) async fn lifecycle(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.lifecycle.lock().await
    }
}
