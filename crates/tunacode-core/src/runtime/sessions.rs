//! Opening and listing sessions for the runtime (blocking file work: called on blocking threads).

use std::path::Path;

use tunacode_store::{SessionStore, StoreError, project_id};

use crate::runtime::SessionChoice;
use crate::runtime::events::ListedSession;
use crate::session::Session;

/// A session opened for the runtime.
pub(crate) struct Opened {
    pub session: Session,
    pub resumed: bool,
    pub notice: Option<String>,
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
        SessionChoice::Resume(id) => Some(id.clone()),
        SessionChoice::ContinueLatest => match store.latest(&project)? {
            Some(latest) => Some(latest.session_id),
            None => {
                return Ok(Opened {
                    session: Session::new(cwd, model),
                    resumed: false,
                    notice: Some(format!(
                        "No saved session to continue in {}; this is a new one.",
                        cwd.display()
                    )),
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
/// killed), the recovered session is saved at once, so the file is whole again.
fn resume(store: &SessionStore, project: &str, id: &str) -> Result<Opened, StoreError> {
    let mut loaded = store.load(project, id)?;
    let notice = (loaded.recovered > 0).then(|| {
        format!(
            "Recovered {} message(s) the last run wrote before it stopped.",
            loaded.recovered
        )
    });
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
    Ok(Opened {
        session,
        resumed: true,
        notice,
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
