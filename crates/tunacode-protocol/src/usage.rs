//! Token usage and cost of model calls (seed 001 "Usage Tracking Contract").

use serde::{Deserialize, Serialize};

/// Tokens and cost of one model call, or a running total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Usage {
    /// Input tokens, including cached ones.
    #[serde(alias = "prompt_tokens", alias = "input_tokens", alias = "input")]
    pub request_tokens: u64,
    /// Output tokens, including reasoning ones.
    #[serde(alias = "completion_tokens", alias = "output_tokens", alias = "output")]
    pub response_tokens: u64,
    /// Input tokens served from the provider's cache.
    #[serde(alias = "cache_read")]
    pub cached_tokens: u64,
    /// Input tokens written to the provider's cache (Anthropic cache creation).
    #[serde(alias = "cache_write")]
    pub cache_write_tokens: u64,
    /// Output tokens spent on reasoning.
    pub reasoning_tokens: u64,
    /// Cost in US dollars, when known (TunaCode 0.2.x stores a map of parts with a `total`).
    #[serde(deserialize_with = "cost_number_or_map")]
    pub cost: f64,
}

/// A cost as a number, or as the map TunaCode 0.2.x writes (`{"input": …, "total": …}`).
fn cost_number_or_map<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Cost {
        Number(f64),
        Parts { total: f64 },
        Other(serde::de::IgnoredAny),
    }
    Ok(match Cost::deserialize(deserializer)? {
        Cost::Number(n) => n,
        Cost::Parts { total } => total,
        Cost::Other(_) => 0.0,
    })
}

impl Usage {
    /// Adds another call's usage to this total.
    pub fn add(&mut self, other: &Usage) {
        self.request_tokens += other.request_tokens;
        self.response_tokens += other.response_tokens;
        self.cached_tokens += other.cached_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
        self.reasoning_tokens += other.reasoning_tokens;
        self.cost += other.cost;
    }

    /// Share of the input tokens read from the provider's prompt cache (0 when nothing was sent).
    pub fn cache_hit_ratio(&self) -> f64 {
        if self.request_tokens == 0 {
            0.0
        } else {
            (self.cached_tokens as f64 / self.request_tokens as f64).min(1.0)
        }
    }

    /// Input plus output tokens.
    pub fn total_tokens(&self) -> u64 {
        self.request_tokens + self.response_tokens
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tunacode_0_2_usage_with_a_cost_map_loads() {
        let u: Usage = serde_json::from_str(
            r#"{"input": 4750, "output": 57, "cache_read": 2560, "cache_write": 3, "total_tokens": 4807,
                "cost": {"input": 0.01, "output": 0.02, "cache_read": 0.0, "cache_write": 0.0, "total": 0.03}}"#,
        )
        .unwrap();
        assert_eq!(
            (
                u.request_tokens,
                u.response_tokens,
                u.cached_tokens,
                u.cache_write_tokens
            ),
            (4750, 57, 2560, 3)
        );
        assert!((u.cost - 0.03).abs() < 1e-12);
    }

    #[test]
    fn add_accumulates_every_field_and_old_names_load() {
        let mut total: Usage =
            serde_json::from_str(r#"{"prompt_tokens": 10, "completion_tokens": 5, "cost": 0.5}"#)
                .unwrap();
        total.add(&Usage {
            request_tokens: 1,
            response_tokens: 2,
            cached_tokens: 3,
            cache_write_tokens: 2,
            reasoning_tokens: 4,
            cost: 0.25,
        });
        assert_eq!(
            total,
            Usage {
                request_tokens: 11,
                response_tokens: 7,
                cached_tokens: 3,
                cache_write_tokens: 2,
                reasoning_tokens: 4,
                cost: 0.75
            }
        );
        assert_eq!(total.total_tokens(), 18);
    }
}
