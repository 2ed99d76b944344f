//! Opening and listing sessions for the runtime (blocking file work: called on blocking threads).

use std::path::Path;

use tunacode_protocol::NoticeLevel;
use tunacode_store::{LoadedSession, SessionStore, StoreError, project_id};

use crate::runtime::events::{JournalRecovery, ListedSession, SessionNotice};
use crate::runtime::handle::SessionChoice;
use crate::session::Session;

/// A session opened for the runtime.
pub(crate) struct Opened {
    pub session: Session,
    pub resumed: bool,
    pub notice: Option<SessionNotice>,
}

/// Opens the chosen session. `ContinueLatest` with nothing saved opens a new session and says so (the
/// same in every front end); a session id that does not exist is an error.
pub(crate) fn open(
    store: &SessionStore,
    cwd: &Path,
    model: &str,
    choice: &SessionChoice,
) -> Result<Opened, StoreError> {
    let project = project_id(cwd);
    let id = match choice {
        SessionChoice::New => None,
        // The 8-character id the front ends show is enough.
        SessionChoice::Resume(id) => Some(store.resolve_id(&project, id)?),
        SessionChoice::ContinueLatest => match store.latest(&project)? {
            Some(latest) => Some(latest.session_id),
            None => {
                return Ok(Opened {
                    session: Session::new(cwd, model),
                    resumed: false,
                    notice: Some(SessionNotice::info(format!(
                        "No saved session to continue in {}; this is a new one.",
                        cwd.display()
                    ))),
                });
            }
        },
    };
    match id {
        Some(id) => resume(store, &project, &id),
        None => Ok(Opened {
            session: Session::new(cwd, model),
            resumed: false,
            notice: None,
        }),
    }
}

/// Loads a saved session. When its journal held messages the file did not (the last process was
/// killed), the recovered session is saved at once, so the file is whole again; what could not be
/// replayed was kept aside, and the notice says where.
fn resume(store: &SessionStore, project: &str, id: &str) -> Result<Opened, StoreError> {
    let mut loaded = store.load(project, id)?;
    let tree = store.load_tree(project, id)?;
    let notice = match &tree.kept_aside {
        Some((path, problem)) => Some(SessionNotice {
            level: NoticeLevel::Warning,
            message: format!(
                "The rewind tree of session {id} could not be read ({problem}); it was kept in {} \
                 and rewind starts afresh from here.",
                path.display()
            ),
            recovery: None,
        }),
        None => recovery_notice(&loaded),
    };
    if let Some(kept) = &loaded.kept_aside {
        tracing::warn!(session = id, file = %kept.path.display(), lines = kept.lines,
            reason = %kept.reason, "journal lines kept aside");
    }
    if loaded.recovered > 0 {
        loaded.file.last_modified = tunacode_store::now_rfc3339();
        loaded.base = store.save(&loaded.file)?;
    }
    if loaded.from_python {
        // Saved from now on in this version's folder for this project; the Python file stays as it is.
        loaded.file.project_id = project.to_string();
    }
    let mut session = Session::from_file(loaded.file);
    session.journal_base = (!loaded.from_python).then_some(loaded.base);
    session.tree = tree.tree;
    Ok(Opened {
        session,
        resumed: true,
        notice,
    })
}

/// What the user is told about a session's journal: the messages recovered, the lines kept aside,
/// where and why.
fn recovery_notice(loaded: &LoadedSession) -> Option<SessionNotice> {
    let recovered = loaded.recovered;
    let Some(kept) = &loaded.kept_aside else {
        return (recovered > 0).then(|| SessionNotice {
            level: NoticeLevel::Info,
            message: format!(
                "Recovered {recovered} message(s) the last run wrote before it stopped."
            ),
            recovery: Some(JournalRecovery {
                recovered,
                kept_aside: 0,
                kept_file: None,
            }),
        });
    };
    Some(SessionNotice {
        level: NoticeLevel::Warning,
        message: format!(
            "The journal of session {} could not be replayed in full: {}. Recovered {recovered} \
             message(s); kept {} line(s) aside in {}.",
            loaded.file.session_id,
            kept.reason,
            kept.lines,
            kept.path.display()
        ),
        recovery: Some(JournalRecovery {
            recovered,
            kept_aside: kept.lines,
            kept_file: Some(kept.path.clone()),
        }),
    })
}

/// This project's sessions (with a preview each) and the files that could not be read.
pub(crate) fn list(
    store: &SessionStore,
    cwd: &Path,
) -> Result<(Vec<ListedSession>, Vec<String>), StoreError> {
    let (sessions, broken) = store.list(&project_id(cwd))?;
    let listed = sessions
        .into_iter()
        .map(|summary| ListedSession {
            preview: summary.preview.clone(),
            summary,
        })
        .collect();
    Ok((listed, broken.iter().map(ToString::to_string).collect()))
}
