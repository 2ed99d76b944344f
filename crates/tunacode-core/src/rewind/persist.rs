//! Saving a session's tree beside its file. Writers are serialized, so a tree read under the
//! session's lock is never overwritten by an older one written late.

use std::sync::Mutex;

use tunacode_store::{SessionStore, StoreError};

use crate::session::SessionHandle;

/// Held from reading a tree to writing it.
static TREE_WRITES: Mutex<()> = Mutex::new(());

/// Writes `session`'s tree now (blocking).
pub fn save_tree_now(store: &SessionStore, session: &SessionHandle) -> Result<(), StoreError> {
    let _alone = TREE_WRITES.lock().unwrap_or_else(|p| p.into_inner());
    let (project, id, tree) = {
        let s = session.lock();
        (s.project_id.clone(), s.id.clone(), s.tree.clone())
    };
    store.save_tree(&project, &id, &tree)
}

/// Writes `session`'s tree off the async threads; a failure is logged (the session file is
/// unaffected, and the next save writes the tree whole).
pub(crate) async fn save_tree(store: Option<&SessionStore>, session: &SessionHandle) {
    let Some(store) = store.cloned() else {
        return;
    };
    let session = session.clone();
    let saved = tokio::task::spawn_blocking(move || save_tree_now(&store, &session)).await;
    if let Ok(Err(e)) = saved {
        tracing::warn!(error = %e, "saving the session's rewind tree");
    }
}
