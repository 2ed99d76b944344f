//! The [`ToolSet`] the engine offers the model: the built-in tools and whatever joins them at run time.

use std::sync::Arc;

use tunacode_protocol::ToolSpec;

use crate::tool::Tool;
use crate::tools::{TodoList, builtin_tools};

/// The set of tools offered to the model in one request.
#[derive(Clone, Default)]
pub struct ToolSet {
    tools: Vec<Arc<dyn Tool>>,
}

impl std::fmt::Debug for ToolSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|t| t.name()))
            .finish()
    }
}

impl ToolSet {
    /// An empty set.
    pub fn new() -> Self {
        ToolSet { tools: Vec::new() }
    }

    /// The built-in tools, with a todo list of their own.
    pub fn builtin() -> Self {
        Self::builtin_with_todos(&TodoList::default())
    }

    /// The built-in tools; `todo` works on `todos` (the session's list).
    pub fn builtin_with_todos(todos: &TodoList) -> Self {
        let mut set = ToolSet::new();
        for tool in builtin_tools(todos) {
            set.add(tool);
        }
        set
    }

    /// Only the tools `keep` accepts (e.g. the read-only ones in plan mode).
    pub fn filtered(&self, keep: impl Fn(&dyn Tool) -> bool) -> Self {
        ToolSet {
            tools: self
                .tools
                .iter()
                .filter(|t| keep(t.as_ref()))
                .cloned()
                .collect(),
        }
    }

    /// Adds a tool, replacing one of the same name.
    pub fn add(&mut self, tool: Arc<dyn Tool>) {
        self.tools.retain(|t| t.name() != tool.name());
        self.tools.push(tool);
    }

    /// Removes the tool called `name`; returns whether there was one.
    pub fn remove(&mut self, name: &str) -> bool {
        let before = self.tools.len();
        self.tools.retain(|t| t.name() != name);
        self.tools.len() != before
    }

    /// Finds a tool by name.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools.iter().find(|t| t.name() == name).cloned()
    }

    /// How many tools the set holds.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the set holds no tool.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// The specs offered to the model, in order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(|t| t.spec()).collect()
    }
}

#[cfg(test)]
#[path = "toolset_tests.rs"]
mod tests;
