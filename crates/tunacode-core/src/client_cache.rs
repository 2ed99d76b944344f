//! [`ClientCache`]: the model client, built once and reused across iterations and requests (so HTTP
//! connections are reused), dropped after an abort or a timeout (seed 000 §6).

use std::sync::{Arc, Mutex};

use tunacode_llm::{LlmError, ModelClient};

/// Builds a client for the configured model.
pub type ClientFactory = Arc<dyn Fn() -> Result<Arc<dyn ModelClient>, LlmError> + Send + Sync>;

/// Holds the current client.
pub struct ClientCache {
    factory: ClientFactory,
    current: Mutex<Option<Arc<dyn ModelClient>>>,
}

impl std::fmt::Debug for ClientCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCache").finish_non_exhaustive()
    }
}

impl ClientCache {
    /// A cache that builds clients with `factory`.
    pub fn new(factory: ClientFactory) -> Self {
        ClientCache {
            factory,
            current: Mutex::new(None),
        }
    }

    /// The cached client, built on first use.
    pub fn get(&self) -> Result<Arc<dyn ModelClient>, LlmError> {
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(client) = current.as_ref() {
            return Ok(client.clone());
        }
        let client = (self.factory)()?;
        *current = Some(client.clone());
        Ok(client)
    }

    /// Drops the cached client; the next call builds a new one.
    pub fn invalidate(&self) {
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}
