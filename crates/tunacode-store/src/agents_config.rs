//! `settings.agents`: how sub-agents run, e.g. `{"max_parallel": 4}`.

use serde::Deserialize;

/// How sub-agents (the `task` tool) run.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentsConfig {
    /// Whether the model is offered the `task` tool at all.
    pub enabled: bool,
    /// Sub-agents running at once; more `task` calls wait for one to end.
    pub max_parallel: usize,
}

impl Default for AgentsConfig {
    fn default() -> Self {
        AgentsConfig {
            enabled: true,
            max_parallel: 4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_keys_keep_their_defaults_and_typos_are_refused() {
        let config: AgentsConfig = serde_json::from_str(r#"{"max_parallel": 2}"#).unwrap();
        assert_eq!(config.max_parallel, 2);
        assert!(config.enabled);
        let err = serde_json::from_str::<AgentsConfig>(r#"{"parallel": 2}"#).unwrap_err();
        assert!(
            err.to_string().contains("unknown field `parallel`"),
            "{err}"
        );
    }
}
