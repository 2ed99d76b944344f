//! `todo`: the agent's task list for the session (add, update status, list, clear). The list lives in a
//! shared [`TodoList`] that the engine saves with the session, puts into the system prompt of every
//! request, and front ends show. It touches no file, so it needs no approval.

use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tunacode_protocol::{TodoItem, TodoStatus};

use crate::args::parse;
use crate::schema::schema_for;
use crate::tool::{Tool, ToolContext, ToolKind, ToolOutput};
use crate::tool_error::ToolError;
use std::sync::LazyLock;

const NAME: &str = "todo";

/// The session's todo list, shared between the tool, the engine and front ends.
#[derive(Debug, Clone, Default)]
pub struct TodoList(Arc<Mutex<Vec<TodoItem>>>);

impl TodoList {
    /// A list holding `items`.
    pub fn from_items(items: Vec<TodoItem>) -> Self {
        TodoList(Arc::new(Mutex::new(items)))
    }

    fn lock(&self) -> MutexGuard<'_, Vec<TodoItem>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The items as they are now.
    pub fn items(&self) -> Vec<TodoItem> {
        self.lock().clone()
    }

    /// The list as text for the model and the user (`None` when empty).
    pub fn render(&self) -> Option<String> {
        let items = self.lock();
        if items.is_empty() {
            return None;
        }
        let lines: Vec<String> = items
            .iter()
            .map(|t| {
                let mark = match t.status {
                    TodoStatus::Pending => "[ ]",
                    TodoStatus::InProgress => "[~]",
                    TodoStatus::Completed => "[x]",
                };
                format!("{mark} {}. {}", t.id, t.content)
            })
            .collect();
        Some(lines.join("\n"))
    }
}

/// The `todo` tool.
#[derive(Debug, Clone, Default)]
pub struct Todo {
    list: TodoList,
}

impl Todo {
    /// The tool working on `list`.
    pub fn new(list: TodoList) -> Self {
        Todo { list }
    }
}

// The variants carry no doc comments: documented variants would make the schema a `oneOf` of
// constants instead of a plain string `enum`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Action {
    Add,
    Update,
    List,
    Clear,
}

/// [`TodoStatus`] as the model names it in arguments (its schema is a plain string `enum`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    Pending,
    InProgress,
    Completed,
}

impl From<Status> for TodoStatus {
    fn from(status: Status) -> Self {
        match status {
            Status::Pending => TodoStatus::Pending,
            Status::InProgress => TodoStatus::InProgress,
            Status::Completed => TodoStatus::Completed,
        }
    }
}

#[derive(Deserialize, JsonSchema)]
struct Args {
    action: Action,
    content: Option<String>,
    #[serde(default)]
    items: Vec<String>,
    id: Option<u32>,
    status: Option<Status>,
}

#[async_trait]
impl Tool for Todo {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        "Your todo list for multi-step work: `add` (`content` or `items`), `update` (`id`, `status`), \
         `list`, `clear`. Plan the steps; mark one in_progress while on it, then completed. You see \
         the list every turn."
    }

    fn parameters(&self) -> Value {
        // Derived once: the schema is offered to the model on every call.
        static SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<Args>);
        SCHEMA.clone()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::ReadOnly
    }

    async fn call(
        &self,
        args: Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let args: Args = parse(NAME, &args)?;
        let mut items = self.list.lock();
        match args.action {
            Action::Add => {
                let new: Vec<String> = args
                    .content
                    .into_iter()
                    .chain(args.items)
                    .filter(|c| !c.trim().is_empty())
                    .collect();
                if new.is_empty() {
                    return Err(ToolError::Retry(
                        "todo add needs `content` or `items`".into(),
                    ));
                }
                let first = items.iter().map(|t| t.id).max().unwrap_or(0) + 1;
                for (id, content) in (first..).zip(new) {
                    items.push(TodoItem {
                        id,
                        content: content.trim().to_string(),
                        status: TodoStatus::Pending,
                    });
                }
            }
            Action::Update => {
                let (Some(id), Some(status)) = (args.id, args.status) else {
                    return Err(ToolError::Retry(
                        "todo update needs `id` and `status`".into(),
                    ));
                };
                let ids: Vec<u32> = items.iter().map(|t| t.id).collect();
                let item = items.iter_mut().find(|t| t.id == id).ok_or_else(|| {
                    ToolError::Retry(format!("there is no todo {id}; the ids are {ids:?}"))
                })?;
                item.status = status.into();
            }
            Action::List => {}
            Action::Clear => items.clear(),
        }
        drop(items);
        Ok(ToolOutput::text(
            self.list
                .render()
                .unwrap_or_else(|| "The todo list is empty.".into()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{args, ctx};
    use serde_json::json;

    #[tokio::test]
    async fn add_update_list_and_clear() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path());
        let list = TodoList::default();
        let tool = Todo::new(list.clone());
        let out = tool
            .call(
                args(json!({"action": "add", "items": ["read code", "fix bug"]})),
                &ctx,
            )
            .await
            .unwrap();
        assert_eq!(out.content, "[ ] 1. read code\n[ ] 2. fix bug");
        tool.call(
            args(json!({"action": "update", "id": 1, "status": "completed"})),
            &ctx,
        )
        .await
        .unwrap();
        tool.call(
            args(json!({"action": "update", "id": 2, "status": "in_progress"})),
            &ctx,
        )
        .await
        .unwrap();
        tool.call(args(json!({"action": "add", "content": "run tests"})), &ctx)
            .await
            .unwrap();
        assert_eq!(
            list.render().unwrap(),
            "[x] 1. read code\n[~] 2. fix bug\n[ ] 3. run tests"
        );
        let listed = tool
            .call(args(json!({"action": "list"})), &ctx)
            .await
            .unwrap();
        assert_eq!(listed.content, list.render().unwrap());
        tool.call(args(json!({"action": "clear"})), &ctx)
            .await
            .unwrap();
        assert_eq!(list.render(), None);
    }

    #[tokio::test]
    async fn mistakes_go_back_to_the_model() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path());
        let tool = Todo::default();
        for bad in [
            json!({"action": "add"}),
            json!({"action": "update", "id": 9, "status": "completed"}),
            json!({"action": "update", "id": 1}),
            json!({"action": "explode"}),
        ] {
            assert!(
                matches!(
                    tool.call(args(bad.clone()), &ctx).await,
                    Err(ToolError::Retry(_))
                ),
                "{bad}"
            );
        }
    }
}
