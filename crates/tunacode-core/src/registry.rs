//! [`ToolCallRegistry`]: the single source of truth of a tool call's lifecycle within a request
//! (seed 000 §3.5): register → start → complete | fail | cancel, keyed by `tool_call_id`.

use std::collections::HashMap;

use serde_json::Value;

/// Where a tool call is in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolCallStatus {
    /// Discovered in a response.
    Registered,
    /// Executing.
    Running,
    /// Returned a result.
    Completed,
    /// Failed (error, refusal, bad arguments).
    Failed,
    /// Aborted by the user.
    Cancelled,
}

impl ToolCallStatus {
    /// Whether the call has ended.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

/// One tool call as the registry knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallRecord {
    /// The call id.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// Its arguments as the model sent them.
    pub args: Value,
    /// Where it is.
    pub status: ToolCallStatus,
    /// The result, once completed.
    pub result: Option<String>,
    /// The error or cancel reason, once failed or cancelled.
    pub error: Option<String>,
}

/// A lifecycle rule was broken (an engine bug, reported rather than ignored).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// No call with this id was registered.
    #[error("tool call `{0}` is not registered")]
    Unknown(String),
    /// The id was registered twice.
    #[error("tool call `{0}` is already registered")]
    Duplicate(String),
    /// The transition is not allowed from the call's status.
    #[error("tool call `{id}` cannot go from {from:?} to {to:?}")]
    InvalidTransition {
        /// The call id.
        id: String,
        /// Its status.
        from: ToolCallStatus,
        /// The status asked for.
        to: ToolCallStatus,
    },
}

/// Tracks every tool call of the current request.
#[derive(Debug, Default, Clone)]
pub struct ToolCallRegistry {
    records: Vec<ToolCallRecord>,
    index: HashMap<String, usize>,
}

impl ToolCallRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets every call (at the start of a request).
    pub fn clear(&mut self) {
        self.records.clear();
        self.index.clear();
    }

    /// Records a call discovered in a response.
    pub fn register(&mut self, id: &str, name: &str, args: Value) -> Result<(), RegistryError> {
        if self.index.contains_key(id) {
            return Err(RegistryError::Duplicate(id.to_string()));
        }
        self.index.insert(id.to_string(), self.records.len());
        self.records.push(ToolCallRecord {
            tool_call_id: id.to_string(),
            tool_name: name.to_string(),
            args,
            status: ToolCallStatus::Registered,
            result: None,
            error: None,
        });
        Ok(())
    }

    /// Marks a call as executing.
    pub fn start(&mut self, id: &str) -> Result<(), RegistryError> {
        self.transition(id, ToolCallStatus::Running, |_| {})
    }

    /// Marks a call as completed with its result.
    pub fn complete(&mut self, id: &str, result: &str) -> Result<(), RegistryError> {
        self.transition(id, ToolCallStatus::Completed, |r| {
            r.result = Some(result.to_string())
        })
    }

    /// Marks a call as failed.
    pub fn fail(&mut self, id: &str, error: &str) -> Result<(), RegistryError> {
        self.transition(id, ToolCallStatus::Failed, |r| {
            r.error = Some(error.to_string())
        })
    }

    /// Marks a call as cancelled.
    pub fn cancel(&mut self, id: &str, reason: &str) -> Result<(), RegistryError> {
        self.transition(id, ToolCallStatus::Cancelled, |r| {
            r.error = Some(reason.to_string())
        })
    }

    /// The arguments registered for a call (the seed's `consume_tool_call_args`); an error if unknown.
    pub fn args(&self, id: &str) -> Result<&Value, RegistryError> {
        self.get(id)
            .map(|r| &r.args)
            .ok_or_else(|| RegistryError::Unknown(id.to_string()))
    }

    /// One call's record.
    pub fn get(&self, id: &str) -> Option<&ToolCallRecord> {
        self.index.get(id).map(|&i| &self.records[i])
    }

    /// Every call, in registration order.
    pub fn records(&self) -> &[ToolCallRecord] {
        &self.records
    }

    /// Calls that have not ended (registered or running).
    pub fn in_flight(&self) -> Vec<String> {
        self.records
            .iter()
            .filter(|r| !r.status.is_terminal())
            .map(|r| r.tool_call_id.clone())
            .collect()
    }

    fn transition(
        &mut self,
        id: &str,
        to: ToolCallStatus,
        update: impl FnOnce(&mut ToolCallRecord),
    ) -> Result<(), RegistryError> {
        let &i = self
            .index
            .get(id)
            .ok_or_else(|| RegistryError::Unknown(id.to_string()))?;
        let record = &mut self.records[i];
        let allowed = match (record.status, to) {
            (ToolCallStatus::Registered, ToolCallStatus::Running) => true,
            (ToolCallStatus::Registered | ToolCallStatus::Running, t) => t.is_terminal(),
            _ => false,
        };
        if !allowed {
            return Err(RegistryError::InvalidTransition {
                id: id.to_string(),
                from: record.status,
                to,
            });
        }
        record.status = to;
        update(record);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lifecycle_register_start_complete() {
        let mut r = ToolCallRegistry::new();
        r.register("a", "grep", json!({"pattern": "x"})).unwrap();
        assert_eq!(r.args("a").unwrap(), &json!({"pattern": "x"}));
        assert_eq!(r.in_flight(), vec!["a".to_string()]);
        r.start("a").unwrap();
        r.complete("a", "found").unwrap();
        let rec = r.get("a").unwrap();
        assert_eq!(
            (rec.status, rec.result.as_deref()),
            (ToolCallStatus::Completed, Some("found"))
        );
        assert!(r.in_flight().is_empty());
    }

    #[test]
    fn fail_and_cancel_record_why_and_are_final() {
        let mut r = ToolCallRegistry::new();
        r.register("a", "bash", json!({})).unwrap();
        r.register("b", "bash", json!({})).unwrap();
        r.start("a").unwrap();
        r.fail("a", "exit 1").unwrap();
        r.cancel("b", "user abort").unwrap();
        assert_eq!(r.get("a").unwrap().error.as_deref(), Some("exit 1"));
        assert_eq!(r.get("b").unwrap().status, ToolCallStatus::Cancelled);
        assert!(matches!(
            r.complete("a", "x"),
            Err(RegistryError::InvalidTransition { .. })
        ));
        assert!(matches!(
            r.start("b"),
            Err(RegistryError::InvalidTransition { .. })
        ));
    }

    #[test]
    fn unknown_and_duplicate_ids_are_errors() {
        let mut r = ToolCallRegistry::new();
        assert_eq!(r.start("x"), Err(RegistryError::Unknown("x".into())));
        assert!(r.args("x").is_err());
        r.register("x", "t", json!({})).unwrap();
        assert_eq!(
            r.register("x", "t", json!({})),
            Err(RegistryError::Duplicate("x".into()))
        );
        r.clear();
        assert!(r.records().is_empty());
    }
}
