//! [`Session`]: the mutable state behind a conversation (seed 000 §3): conversation (messages,
//! thoughts), runtime (request id, counters, tool registry), usage, task; and its conversion to and from
//! the stored [`SessionFile`].

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value};
use tunacode_protocol::{Message, TodoItem, Usage};
use tunacode_store::{SESSION_FORMAT_VERSION, SessionFile, now_rfc3339, project_id};
use tunacode_tools::TodoList;

use crate::history::estimate_history_tokens;
use crate::registry::ToolCallRegistry;

/// Per-request runtime state (reset at the start of every request, seed 000 §3.1).
#[derive(Debug, Clone, Default)]
pub struct RuntimeState {
    /// 8 hex chars identifying the request.
    pub request_id: String,
    /// The iteration being run.
    pub current_iteration: u32,
    /// Iterations run so far.
    pub iteration_count: u32,
    /// Every tool call of the request.
    pub tool_registry: ToolCallRegistry,
    /// Tool batches dispatched.
    pub batch_counter: u32,
    /// Empty responses in a row.
    pub consecutive_empty_responses: u32,
    /// A plan presented in plan mode that nobody could approve now (the request ends with it).
    pub plan_awaiting_approval: Option<String>,
    /// The names of the tools the last request offered (a change is said when the next one starts).
    pub offered_tools: Vec<String>,
    /// The last model call, for telling why a later one missed the provider's cache (forgotten when
    /// the history is rewritten: a miss is expected then).
    pub last_call: Option<CallMark>,
}

/// What a model call was made with, and what it read from the provider's cache.
#[derive(Debug, Clone, PartialEq)]
pub struct CallMark {
    /// When it was answered.
    pub at: std::time::Instant,
    /// The model that answered it.
    pub model: String,
    /// The tools it offered.
    pub tools: Vec<String>,
    /// Input tokens it read from the cache.
    pub cached: u64,
}

/// Token usage of the session.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct UsageState {
    /// The last model call.
    pub last_call: Usage,
    /// All calls so far.
    pub session_total: Usage,
}

/// The task the user asked for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskState {
    /// The message of the current request.
    pub original_query: String,
}

/// One conversation and everything the engine tracks about it.
#[derive(Debug, Clone)]
pub struct Session {
    /// Its id (a UUID).
    pub id: String,
    /// The project (working directory) id.
    pub project_id: String,
    /// When it was created.
    pub created_at: String,
    /// The working directory.
    pub working_directory: String,
    /// `provider:model` in use.
    pub model: String,
    /// The conversation, shared (copied on write) with what reads it: a run's history, the file
    /// being saved, a front end's view.
    pub messages: std::sync::Arc<Vec<Message>>,
    /// Recorded reasoning.
    pub thoughts: Vec<Value>,
    /// Usage so far.
    pub usage: UsageState,
    /// Per-request state.
    pub runtime: RuntimeState,
    /// The task.
    pub task: TaskState,
    /// Estimated tokens of the history.
    pub total_tokens: u64,
    /// The agent's todo list (stored as `todos`).
    pub todos: TodoList,
    /// Whether plan mode is on: only read-only tools until a plan is approved (stored as `plan_mode`).
    pub plan_mode: bool,
    /// The user turned loop detection off for this session (not stored).
    pub loop_detection_off: bool,
    /// What `SessionStart` hooks said, added to the next prompt (not stored).
    pub start_context: Vec<String>,
    /// The checkpoint (the session file as last saved or loaded) new journal lines follow; `None`
    /// while the session has no file.
    pub journal_base: Option<tunacode_store::JournalBase>,
    /// Its prompts as a tree of turns (stored beside the session file, see `rewind/`).
    pub tree: tunacode_store::SessionTree,
    /// Stored keys this version does not use, written back unchanged.
    pub extra: Map<String, Value>,
}

impl Session {
    /// A new, empty session for a working directory.
    pub fn new(working_directory: &Path, model: &str) -> Self {
        Session {
            id: uuid::Uuid::new_v4().to_string(),
            project_id: project_id(working_directory),
            created_at: now_rfc3339(),
            working_directory: working_directory.display().to_string(),
            model: model.to_string(),
            messages: Default::default(),
            thoughts: Vec::new(),
            usage: UsageState::default(),
            runtime: RuntimeState::default(),
            task: TaskState::default(),
            total_tokens: 0,
            todos: TodoList::default(),
            plan_mode: false,
            loop_detection_off: false,
            start_context: Vec::new(),
            journal_base: None,
            tree: tunacode_store::SessionTree::default(),
            extra: Default::default(),
        }
    }

    /// A session loaded from its file. Set [`Session::journal_base`] when the file is on disk as
    /// loaded.
    pub fn from_file(file: SessionFile) -> Self {
        let mut extra = file.extra;
        let todos = extra
            .remove("todos")
            .and_then(|v| serde_json::from_value::<Vec<TodoItem>>(v).ok())
            .unwrap_or_default();
        let plan_mode = extra
            .remove("plan_mode")
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
        Session {
            id: file.session_id,
            project_id: file.project_id,
            created_at: file.created_at,
            working_directory: file.working_directory,
            model: file.current_model,
            messages: file.messages,
            thoughts: file.thoughts,
            usage: UsageState {
                last_call: Usage::default(),
                session_total: file.session_total_usage,
            },
            runtime: RuntimeState::default(),
            task: TaskState::default(),
            total_tokens: file.total_tokens,
            todos: TodoList::from_items(todos),
            plan_mode,
            loop_detection_off: false,
            start_context: Vec::new(),
            journal_base: None,
            tree: tunacode_store::SessionTree::default(),
            extra,
        }
    }

    /// The file to store (stamped with the current time).
    pub fn to_file(&self) -> SessionFile {
        let mut extra = self.extra.clone();
        let todos = self.todos.items();
        if !todos.is_empty() {
            extra.insert(
                "todos".into(),
                serde_json::to_value(todos).unwrap_or_default(),
            );
        }
        if self.plan_mode {
            extra.insert("plan_mode".into(), Value::Bool(true));
        }
        SessionFile {
            version: SESSION_FORMAT_VERSION,
            session_id: self.id.clone(),
            project_id: self.project_id.clone(),
            created_at: self.created_at.clone(),
            last_modified: now_rfc3339(),
            working_directory: self.working_directory.clone(),
            current_model: self.model.clone(),
            total_tokens: self.total_tokens,
            session_total_usage: self.usage.session_total,
            thoughts: self.thoughts.clone(),
            messages: self.messages.clone(),
            extra,
        }
    }

    /// Recomputes `total_tokens` after the messages changed (seed 001 `update_token_count`).
    pub fn update_token_count(&mut self) {
        self.total_tokens = estimate_history_tokens(&self.messages);
    }

    /// The last assistant text of the conversation (for front ends; no dependency on provider types).
    pub fn last_assistant_text(&self) -> Option<String> {
        self.messages
            .iter()
            .rev()
            .filter(|m| m.is_response())
            .map(Message::text)
            .find(|t| !t.trim().is_empty())
    }
}

/// A session shared between the engine and a front end, which may append messages during a run.
#[derive(Debug, Clone)]
pub struct SessionHandle(Arc<Mutex<Session>>);

impl SessionHandle {
    /// Wraps a session.
    pub fn new(session: Session) -> Self {
        SessionHandle(Arc::new(Mutex::new(session)))
    }

    /// Locks the session. Critical sections are short and never span an await.
    pub fn lock(&self) -> MutexGuard<'_, Session> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A copy of the session as it is now.
    pub fn snapshot(&self) -> Session {
        self.lock().clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tunacode_protocol::Part;

    #[test]
    fn file_round_trip_keeps_messages_thoughts_usage_and_unknown_keys() {
        let mut s = Session::new(Path::new("/tmp"), "openai:m");
        s.messages = std::sync::Arc::new(vec![
            Message::user("hi"),
            Message::response(vec![Part::text("hello")]),
        ]);
        s.thoughts.push(Value::String("thinking".into()));
        s.usage.session_total.request_tokens = 42;
        s.extra.insert("later_feature".into(), Value::Array(vec![]));
        s.todos = TodoList::from_items(vec![TodoItem {
            id: 1,
            content: "fix".into(),
            status: tunacode_protocol::TodoStatus::InProgress,
        }]);
        s.plan_mode = true;
        s.update_token_count();
        let file = s.to_file();
        let back = Session::from_file(
            serde_json::from_value(serde_json::to_value(&file).unwrap()).unwrap(),
        );
        assert_eq!(back.messages, s.messages);
        assert_eq!(back.thoughts, s.thoughts);
        assert_eq!(back.usage.session_total, s.usage.session_total);
        assert_eq!(back.extra, s.extra);
        assert_eq!(back.todos.items(), s.todos.items());
        assert!(back.plan_mode);
        assert_eq!(back.total_tokens, 3);
        assert_eq!(back.last_assistant_text().as_deref(), Some("hello"));
    }
}
