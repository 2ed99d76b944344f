//! [`ClientCache`]: model clients cached per model and settings (seed 000 §2.2), so a client (and the
//! HTTP connections of its pool) is reused across iterations and requests, and switching back to a
//! model reuses its client. A client is dropped after an abort or a timeout (seed 000 §6).

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex};

use tunacode_llm::{LlmError, ModelClient, ProviderSettings, create_client};

/// Builds a client for provider settings.
pub type ClientFactory =
    Arc<dyn Fn(&ProviderSettings) -> Result<Arc<dyn ModelClient>, LlmError> + Send + Sync>;

/// Clients by settings fingerprint.
pub struct ClientCache {
    factory: ClientFactory,
    clients: Mutex<HashMap<u64, Arc<dyn ModelClient>>>,
}

impl std::fmt::Debug for ClientCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCache").finish_non_exhaustive()
    }
}

impl Default for ClientCache {
    fn default() -> Self {
        Self::new(Arc::new(create_client))
    }
}

/// A fingerprint of everything that makes a client different. The key is hashed, never kept.
fn fingerprint(settings: &ProviderSettings) -> u64 {
    let mut h = DefaultHasher::new();
    settings.provider.hash(&mut h);
    settings.base_url.hash(&mut h);
    settings.api_key.hash(&mut h);
    format!("{:?}", settings.wire).hash(&mut h);
    settings.retry.max_retries.hash(&mut h);
    settings.retry.base_delay.hash(&mut h);
    settings.retry.max_delay.hash(&mut h);
    settings.idle_timeout.hash(&mut h);
    h.finish()
}

impl ClientCache {
    /// A cache that builds clients with `factory`.
    pub fn new(factory: ClientFactory) -> Self {
        ClientCache {
            factory,
            clients: Mutex::new(HashMap::new()),
        }
    }

    /// The client for `settings`, built on first use.
    pub fn get(&self, settings: &ProviderSettings) -> Result<Arc<dyn ModelClient>, LlmError> {
        let key = fingerprint(settings);
        let mut clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(client) = clients.get(&key) {
            return Ok(client.clone());
        }
        let client = (self.factory)(settings)?;
        clients.insert(key, client.clone());
        Ok(client)
    }

    /// Drops the client for `settings`; the next call builds a new one.
    pub fn invalidate(&self, settings: &ProviderSettings) {
        self.clients
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&fingerprint(settings));
    }

    /// How many clients are cached.
    pub fn len(&self) -> usize {
        self.clients.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether no client is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tunacode_llm::ModelId;

    fn settings(model: &str, key: &str) -> ProviderSettings {
        let id = ModelId::parse(model).unwrap();
        ProviderSettings::for_model(&id, Some("http://127.0.0.1:9/v1".into()), Some(key.into()))
            .unwrap()
    }

    #[test]
    fn one_client_per_settings_reused_until_invalidated() {
        let built = Arc::new(AtomicUsize::new(0));
        let counter = built.clone();
        let cache = ClientCache::new(Arc::new(move |s: &ProviderSettings| {
            counter.fetch_add(1, Ordering::SeqCst);
            create_client(s)
        }));
        let a = settings("openai:a", "k1");
        let first = cache.get(&a).unwrap();
        assert!(Arc::ptr_eq(&first, &cache.get(&a).unwrap()));
        let other_key = settings("openai:a", "k2");
        assert!(!Arc::ptr_eq(&first, &cache.get(&other_key).unwrap()));
        let anthropic = settings("anthropic:b", "k1");
        cache.get(&anthropic).unwrap();
        assert_eq!((cache.len(), built.load(Ordering::SeqCst)), (3, 3));
        cache.invalidate(&a);
        assert!(!Arc::ptr_eq(&first, &cache.get(&a).unwrap()));
        assert_eq!(built.load(Ordering::SeqCst), 4);
    }
}
