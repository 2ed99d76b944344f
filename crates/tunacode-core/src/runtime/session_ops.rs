//! [`SessionOps`], the handler of the session operations: a new session, a resumed one (opened off
//! the async threads), and the list of this project's sessions. It hands the session back; the actor
//! builds the engine over it.

use std::path::PathBuf;

use tunacode_store::SessionStore;

use crate::events::EventSink;
use crate::runtime::blocking::off_thread;
use crate::runtime::events::{OpFailure, RuntimeEvent, store_failure};
use crate::runtime::handle::SessionChoice;
use crate::runtime::sessions::{self, Opened};
use crate::session::Session;

/// The session handler: the store and the working directory whose sessions it opens.
pub(super) struct SessionOps {
    store: SessionStore,
    cwd: PathBuf,
}

impl SessionOps {
    /// A handler over `store`'s sessions of `cwd`.
    pub(super) fn new(store: SessionStore, cwd: PathBuf) -> Self {
        SessionOps { store, cwd }
    }

    /// A new session on `model`.
    pub(super) fn fresh(&self, model: &str) -> Session {
        Session::new(&self.cwd, model)
    }

    /// Opens the saved session `id` (sessions without a model keep `model`).
    pub(super) async fn resume(&self, id: String, model: String) -> Result<Opened, OpFailure> {
        let (store, cwd) = (self.store.clone(), self.cwd.clone());
        off_thread("resuming a session", move || {
            sessions::open(&store, &cwd, &model, &SessionChoice::Resume(id)).map_err(store_failure)
        })
        .await
    }

    /// Saves `session`'s file now, when it was saved before (a session with no request yet has no
    /// file to keep up to date): a setting of the session changed between requests (plan mode) is
    /// then on disk, and a resumed session comes back with it.
    pub(super) async fn save_between_requests(
        &self,
        session: &crate::session::SessionHandle,
    ) -> Result<(), OpFailure> {
        if session.lock().journal_base.is_none() {
            return Ok(());
        }
        let (store, session) = (self.store.clone(), session.clone());
        off_thread("saving the session", move || {
            let file = session.lock().to_file();
            let base = store.save(&file).map_err(store_failure)?;
            session.lock().journal_base = Some(base);
            Ok(())
        })
        .await
    }

    /// Sends this project's sessions to `events` once they are read (nothing waits for them).
    pub(super) fn list(&self, events: EventSink) {
        let (store, cwd) = (self.store.clone(), self.cwd.clone());
        tokio::task::spawn_blocking(move || match sessions::list(&store, &cwd) {
            Ok((sessions, unreadable)) => events.send(RuntimeEvent::SessionList {
                sessions,
                unreadable,
            }),
            Err(e) => events.send(RuntimeEvent::OpFailed(store_failure(e))),
        });
    }
}
