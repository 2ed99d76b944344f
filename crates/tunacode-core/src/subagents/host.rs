//! [`Subagents`]: what the engines of one runtime start sub-agents with: the types in force, each
//! type's own model, and the places they run in.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::types::AgentType;

/// The `task` tool's name.
pub const TASK_TOOL: &str = "task";

/// What a runtime's engines need to start sub-agents.
#[derive(Debug)]
pub struct Subagents {
    /// The types in force.
    pub types: Vec<AgentType>,
    /// Each type's own model, resolved when the runtime opened (`Err`: why it cannot be used).
    pub models: BTreeMap<String, Result<crate::settings::ModelSettings, String>>,
    /// Sub-agents running at once.
    pub max_parallel: usize,
    /// The places to run in (`max_parallel` of them).
    pub(super) slots: Arc<tokio::sync::Semaphore>,
    /// Writers without a worktree of their own take turns in the workspace.
    pub(super) writers: Arc<tokio::sync::Mutex<()>>,
}

impl Subagents {
    /// Sub-agents of `types`, at most `max_parallel` at once.
    pub fn new(
        types: Vec<AgentType>,
        models: BTreeMap<String, Result<crate::settings::ModelSettings, String>>,
        max_parallel: usize,
    ) -> Self {
        let max_parallel = max_parallel.max(1);
        Subagents {
            types,
            models,
            max_parallel,
            slots: Arc::new(tokio::sync::Semaphore::new(max_parallel)),
            writers: Arc::new(tokio::sync::Mutex::new(())),
        }
    }

    /// The type called `name`.
    pub fn find(&self, name: &str) -> Option<&AgentType> {
        self.types.iter().find(|t| t.name == name)
    }
}

/// What the engines of a runtime with `settings` start sub-agents with (`None`: sub-agents are
/// off, `settings.agents.enabled`). Each type's own model is resolved here, off the async threads,
/// as fallback models are.
pub async fn host_for(settings: &crate::settings::RuntimeSettings) -> Option<Arc<Subagents>> {
    if !settings.agents.enabled {
        return None;
    }
    let settings = settings.clone();
    let resolve = move || {
        let types = settings.agent_types.types.clone();
        let models = types
            .iter()
            .filter_map(|t| Some((t.name.clone(), t.model.clone()?)))
            .map(|(name, model)| {
                let resolved = settings.for_model(&model).map_err(|e| e.to_string());
                (name, resolved)
            })
            .collect();
        Subagents::new(types, models, settings.agents.max_parallel)
    };
    match tokio::task::spawn_blocking(resolve).await {
        Ok(host) => Some(Arc::new(host)),
        Err(e) => {
            tracing::error!(error = %e, "resolving the agent types' models");
            None
        }
    }
}
