//! Sessions in the UI: `/clear` starts a new one, `/resume` picks a saved one of this project (with a
//! preview) and replays its history into the transcript.

use tunacode_core::{Session, SessionHandle};
use tunacode_protocol::{Message, NoticeLevel, Part, content_to_text};
use tunacode_store::{SessionStore, project_id};
use tunacode_tools::ToolSet;

use crate::app::picker::{Picker, PickerItem, PickerKind};
use crate::app::state::App;
use crate::app::transcript::{CellKind, ToolCell};
use crate::render::StreamingMarkdown;

impl App {
    /// `/clear`: a new, empty session.
    pub fn new_session(&mut self) {
        if self.busy() {
            self.hint =
                Some("wait for the agent to finish (or Esc) before starting a new session".into());
            return;
        }
        let Some(current) = self.agent.clone() else {
            return;
        };
        let session = Session::new(&self.cwd, &current.options().model);
        let tools = ToolSet::builtin_with_todos(&session.todos);
        let agent = current.with_session(SessionHandle::new(session), tools);
        let window = self.status.context_window;
        self.install_agent(agent, window);
        self.status.usage = Default::default();
        self.status.context_used = 0;
        self.transcript.clear();
        self.transcript.push(CellKind::Info("New session.".into()));
    }

    pub(crate) fn open_resume_picker(&mut self) {
        let store = SessionStore::new(&self.paths.sessions_dir);
        let (sessions, broken) = match store.list(&project_id(&self.cwd)) {
            Ok(list) => list,
            Err(e) => {
                self.transcript.push(CellKind::Error(e.to_string()));
                return;
            }
        };
        for e in broken {
            self.transcript.push(CellKind::Notice(
                NoticeLevel::Warning,
                format!("unreadable session: {e}"),
            ));
        }
        if sessions.is_empty() {
            self.transcript.push(CellKind::Info(
                "No saved sessions for this directory yet.".into(),
            ));
            return;
        }
        let items = sessions
            .iter()
            .map(|s| {
                let preview = SessionStore::load_file(&s.path)
                    .ok()
                    .map(|f| preview_of(&f.messages));
                PickerItem {
                    id: s.session_id.clone(),
                    label: if s.title.is_empty() {
                        "(empty)".into()
                    } else {
                        s.title.clone()
                    },
                    detail: format!(
                        "  {}  {} msgs  {}",
                        s.last_modified, s.message_count, s.current_model
                    ),
                    preview,
                }
            })
            .collect();
        self.picker = Some(Picker::new(PickerKind::Resume, "Resume a session", items));
    }

    /// Loads a saved session and shows its history.
    pub fn resume_session(&mut self, id: &str) {
        if self.busy() {
            self.hint = Some("wait for the agent to finish (or Esc) before resuming".into());
            return;
        }
        let store = SessionStore::new(&self.paths.sessions_dir);
        let file = match store.load(&project_id(&self.cwd), id) {
            Ok(f) => f,
            Err(e) => {
                self.transcript.push(CellKind::Error(e.to_string()));
                return;
            }
        };
        let Some(current) = self.agent.clone() else {
            return;
        };
        let session = Session::from_file(file);
        let messages = session.messages.clone();
        let tools = ToolSet::builtin_with_todos(&session.todos);
        let agent = current.with_session(SessionHandle::new(session), tools);
        let window = self.status.context_window;
        self.install_agent(agent, window);
        self.transcript.clear();
        self.replay(&messages);
        self.transcript
            .push(CellKind::Info(format!("Resumed session {id}.")));
    }

    /// Rebuilds transcript cells from stored messages.
    pub fn replay(&mut self, messages: &[Message]) {
        for m in messages {
            for part in &m.parts {
                match part {
                    Part::UserPrompt(p) => self
                        .transcript
                        .push(CellKind::User(content_to_text(&p.content))),
                    Part::Text(t) if m.is_response() && !t.content.trim().is_empty() => {
                        let mut md = StreamingMarkdown::new();
                        md.push(&t.content);
                        self.transcript.push(CellKind::Assistant(md));
                    }
                    Part::Thinking(t) if !t.content.trim().is_empty() => {
                        self.transcript.push(CellKind::Thinking(t.content.clone()))
                    }
                    Part::ToolCall(c) => self.transcript.push(CellKind::Tool(ToolCell {
                        id: c.tool_call_id.clone(),
                        name: c.tool_name.clone(),
                        args: c
                            .args_object()
                            .map(serde_json::Value::Object)
                            .unwrap_or(c.args.clone()),
                        status: None,
                        started: std::time::Instant::now(),
                        duration_ms: Some(0),
                        result: String::new(),
                        diff: None,
                    })),
                    Part::ToolReturn(r) => self.finish_replayed_tool(
                        &r.tool_call_id,
                        content_to_text(&r.content),
                        tunacode_protocol::ToolStatus::Completed,
                    ),
                    Part::RetryPrompt(r) => {
                        if let Some(id) = &r.tool_call_id {
                            self.finish_replayed_tool(
                                id,
                                content_to_text(&r.content),
                                tunacode_protocol::ToolStatus::Failed,
                            );
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    fn finish_replayed_tool(
        &mut self,
        id: &str,
        result: String,
        status: tunacode_protocol::ToolStatus,
    ) {
        if let Some(cell) = self.transcript.tool_mut(id) {
            if let CellKind::Tool(t) = &mut cell.kind {
                t.status = Some(status);
                t.result = result;
            }
            cell.touch();
        }
    }
}

/// The first messages of a session, for the resume picker.
fn preview_of(messages: &[Message]) -> String {
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
