//! The registry's table: the models, their figures and prices, where the table came from, and the
//! user's overrides laid over it.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use tunacode_protocol::Usage;

/// Prices in US dollars per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Pricing {
    /// Uncached input.
    pub input: f64,
    /// Output (including reasoning).
    pub output: f64,
    /// Cached input read.
    pub cache_read: f64,
    /// Input written to the cache.
    pub cache_write: f64,
}

impl Pricing {
    /// What a call with this usage cost (our `Usage` counts cached and cache-written input inside
    /// `request_tokens`; without a cache-read price, cached input costs the input price).
    pub fn cost(&self, usage: &Usage) -> f64 {
        let cached = usage.cached_tokens.min(usage.request_tokens);
        let written = usage.cache_write_tokens.min(usage.request_tokens - cached);
        let plain = usage.request_tokens - cached - written;
        let cache_read = if self.cache_read > 0.0 {
            self.cache_read
        } else {
            self.input
        };
        let cache_write = if self.cache_write > 0.0 {
            self.cache_write
        } else {
            self.input
        };
        (plain as f64 * self.input
            + cached as f64 * cache_read
            + written as f64 * cache_write
            + usage.response_tokens as f64 * self.output)
            / 1_000_000.0
    }

    /// Whether any price is known.
    pub fn is_known(&self) -> bool {
        self.input > 0.0 || self.output > 0.0
    }
}

/// One model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// Provider name as in model ids (`openai`, `anthropic`, `google`, `openrouter`, …).
    pub provider: String,
    /// The model's id at the provider.
    pub id: String,
    /// Context window in tokens.
    #[serde(default)]
    pub context_window: u64,
    /// Most output tokens per call.
    #[serde(default)]
    pub max_output: u64,
    /// Prices.
    #[serde(flatten)]
    pub pricing: Pricing,
    /// Whether it reasons.
    #[serde(default)]
    pub reasoning: bool,
    /// Whether it takes images as input; `None` when the catalogue does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vision: Option<bool>,
}

impl ModelInfo {
    /// `provider:id`.
    pub fn key(&self) -> String {
        format!("{}:{}", self.provider, self.id)
    }
}

/// A user's override of a model's figures (`models` in the config); unset fields keep the table's.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ModelOverride {
    /// Context window in tokens.
    pub context_window: Option<u64>,
    /// Most output tokens per call.
    pub max_output: Option<u64>,
    /// Input price per million tokens.
    pub input: Option<f64>,
    /// Output price per million tokens.
    pub output: Option<f64>,
    /// Cached input price per million tokens.
    pub cache_read: Option<f64>,
    /// Cache write price per million tokens.
    pub cache_write: Option<f64>,
    /// Whether the model takes images.
    pub vision: Option<bool>,
}

#[derive(Deserialize)]
struct Table {
    models: Vec<ModelInfo>,
}

/// Where the table came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegistrySource {
    /// The table built into the binary.
    Bundled,
    /// A catalogue refreshed from models.dev and cached on disk.
    Refreshed,
}

/// All known models.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRegistry {
    models: BTreeMap<String, ModelInfo>,
    /// Where the table came from.
    pub source: RegistrySource,
}

impl ModelRegistry {
    /// The table built into the binary.
    pub fn bundled() -> Self {
        let table: Table = match serde_json::from_str(include_str!("bundled.json")) {
            Ok(t) => t,
            Err(_) => Table { models: Vec::new() },
        };
        Self::from_models(table.models, RegistrySource::Bundled)
    }

    /// A registry of the given models.
    pub fn from_models(models: Vec<ModelInfo>, source: RegistrySource) -> Self {
        ModelRegistry {
            models: models.into_iter().map(|m| (m.key(), m)).collect(),
            source,
        }
    }

    /// The bundled table, with a refreshed catalogue from `cache` laid over it when that file exists
    /// and reads (a bad cache file is ignored: the bundled table still answers).
    pub fn load(cache: &Path) -> Self {
        let mut registry = Self::bundled();
        if let Ok(text) = std::fs::read_to_string(cache)
            && let Ok(table) = serde_json::from_str::<Table>(&text)
        {
            for m in table.models {
                registry.models.insert(m.key(), m);
            }
            registry.source = RegistrySource::Refreshed;
        }
        registry
    }

    /// Writes the models as a cache file (atomically; the file 0600, a folder it creates 0700: the
    /// data folder is the user's alone).
    pub fn save(&self, cache: &Path) -> std::io::Result<()> {
        use std::io::Write;
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
        let models: Vec<&ModelInfo> = self.models.values().collect();
        let text = serde_json::to_string(&serde_json::json!({ "models": models }))?;
        if let Some(dir) = cache.parent() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)?;
        }
        let tmp = cache.with_extension("json.tmp");
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        // A temporary file left by an older version keeps its mode when reopened.
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        file.write_all(text.as_bytes())?;
        std::fs::rename(&tmp, cache)
    }

    /// Applies the user's overrides (`provider:model` → figures), adding models that are not known.
    pub fn apply_overrides(&mut self, overrides: &BTreeMap<String, ModelOverride>) {
        for (key, o) in overrides {
            let Some((provider, id)) = key.split_once(':') else {
                continue;
            };
            let entry = self.models.entry(key.clone()).or_insert_with(|| ModelInfo {
                provider: provider.to_string(),
                id: id.to_string(),
                context_window: 0,
                max_output: 0,
                pricing: Pricing::default(),
                reasoning: false,
                vision: None,
            });
            if o.vision.is_some() {
                entry.vision = o.vision;
            }
            if let Some(v) = o.context_window {
                entry.context_window = v;
            }
            if let Some(v) = o.max_output {
                entry.max_output = v;
            }
            let p = &mut entry.pricing;
            for (field, value) in [
                (&mut p.input, o.input),
                (&mut p.output, o.output),
                (&mut p.cache_read, o.cache_read),
                (&mut p.cache_write, o.cache_write),
            ] {
                if let Some(v) = value {
                    *field = v;
                }
            }
        }
    }

    /// A model by provider and id.
    pub fn find(&self, provider: &str, id: &str) -> Option<&ModelInfo> {
        self.models.get(&format!("{provider}:{id}"))
    }

    /// Models of one provider (or all), sorted by key.
    pub fn list(&self, provider: Option<&str>) -> Vec<&ModelInfo> {
        self.models
            .values()
            .filter(|m| provider.is_none_or(|p| m.provider == p))
            .collect()
    }

    /// How many models are known.
    pub fn len(&self) -> usize {
        self.models.len()
    }

    /// Whether no model is known.
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_table_covers_each_family_with_sane_figures() {
        let r = ModelRegistry::bundled();
        for provider in ["openai", "anthropic", "google", "openrouter", "ollama"] {
            assert!(
                r.list(Some(provider)).len() >= 3 || provider == "ollama",
                "{provider}"
            );
        }
        for m in r.list(None) {
            assert!(m.context_window >= 8192, "{}", m.key());
            assert!(
                m.max_output > 0 && m.max_output <= m.context_window,
                "{}",
                m.key()
            );
        }
        let sonnet = r.find("anthropic", "claude-sonnet-4-5").unwrap();
        assert_eq!((sonnet.pricing.input, sonnet.pricing.output), (3.0, 15.0));
    }

    #[test]
    fn cost_counts_cached_and_written_input_at_their_prices() {
        let p = Pricing {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        };
        let usage = Usage {
            request_tokens: 1_000_000,
            cached_tokens: 200_000,
            cache_write_tokens: 100_000,
            response_tokens: 100_000,
            ..Usage::default()
        };
        let cost = p.cost(&usage);
        let expected = 0.7 * 3.0 + 0.2 * 0.3 + 0.1 * 3.75 + 0.1 * 15.0;
        assert!((cost - expected).abs() < 1e-9, "{cost} vs {expected}");
        assert_eq!(Pricing::default().cost(&usage), 0.0);
    }

    #[test]
    fn overrides_change_known_models_and_add_new_ones() {
        let mut r = ModelRegistry::bundled();
        let mut o = BTreeMap::new();
        o.insert(
            "openai:gpt-4.1".to_string(),
            ModelOverride {
                input: Some(1.0),
                ..Default::default()
            },
        );
        o.insert(
            "gpu:big".to_string(),
            ModelOverride {
                context_window: Some(65536),
                ..Default::default()
            },
        );
        r.apply_overrides(&o);
        assert_eq!(r.find("openai", "gpt-4.1").unwrap().pricing.input, 1.0);
        assert_eq!(r.find("openai", "gpt-4.1").unwrap().pricing.output, 8.0);
        assert_eq!(r.find("gpu", "big").unwrap().context_window, 65536);
    }

    #[test]
    fn a_cache_file_is_laid_over_and_a_bad_one_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("models.json");
        let fresh = ModelRegistry::from_models(
            vec![ModelInfo {
                provider: "openai".into(),
                id: "gpt-9".into(),
                context_window: 1_000_000,
                max_output: 1000,
                pricing: Pricing::default(),
                reasoning: true,
                vision: None,
            }],
            RegistrySource::Refreshed,
        );
        fresh.save(&cache).unwrap();
        let mode = std::fs::metadata(&cache).unwrap().permissions();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
            0o600
        );
        let loaded = ModelRegistry::load(&cache);
        assert_eq!(loaded.source, RegistrySource::Refreshed);
        assert!(
            loaded.find("openai", "gpt-9").is_some() && loaded.find("openai", "gpt-4.1").is_some()
        );
        std::fs::write(&cache, "{not json").unwrap();
        assert_eq!(ModelRegistry::load(&cache), ModelRegistry::bundled());
    }
}
