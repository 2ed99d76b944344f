//! Opening and listing sessions for the runtime (blocking file work: called on blocking threads).

use std::path::Path;

use tunacode_protocol::{Message, Part, content_to_text};
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
        SessionChoice::ContinueLatest => match store.list(&project)?.0.first() {
            Some(latest) => Some(latest.session_id.clone()),
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
        Some(id) => Ok(Opened {
            session: Session::from_file(store.load(&project, &id)?),
            resumed: true,
            notice: None,
        }),
        None => Ok(Opened {
            session: Session::new(cwd, model),
            resumed: false,
            notice: None,
        }),
    }
}

/// This project's sessions with a preview each, and the files that could not be read.
pub(crate) fn list(
    store: &SessionStore,
    cwd: &Path,
) -> Result<(Vec<ListedSession>, Vec<String>), StoreError> {
    let (sessions, broken) = store.list(&project_id(cwd))?;
    let listed = sessions
        .into_iter()
        .map(|summary| {
            let preview = SessionStore::load_file(&summary.path)
                .map(|f| preview_of(&f.messages))
                .unwrap_or_default();
            ListedSession { summary, preview }
        })
        .collect();
    Ok((listed, broken.iter().map(ToString::to_string).collect()))
}

/// The first messages of a session, one short line each.
pub(crate) fn preview_of(messages: &[Message]) -> String {
    let mut text = String::new();
    for m in messages.iter().filter(|m| !m.is_legacy()).take(8) {
        for p in &m.parts {
            let line = match p {
                Part::UserPrompt(u) => format!("› {}", content_to_text(&u.content)),
                Part::Text(t) => t.content.clone(),
                Part::ToolCall(c) => format!("  ⚙ {}", c.tool_name),
                _ => continue,
            };
            let line: String = line
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(200)
                .collect();
            text.push_str(&line);
            text.push('\n');
        }
    }
    text
}
