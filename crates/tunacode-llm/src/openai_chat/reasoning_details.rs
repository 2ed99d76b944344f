//! OpenRouter's `reasoning_details`: streamed as fragments keyed by `index` (text pieces, then a
//! separate entry with the signature, or encrypted data). They are merged back into whole entries, kept
//! on the reasoning part, and sent back unchanged on the next request so the upstream model can verify
//! its own reasoning.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// Accumulates `reasoning_details` fragments of one response.
#[derive(Debug, Default)]
pub struct ReasoningDetails {
    entries: BTreeMap<u64, Map<String, Value>>,
}

impl ReasoningDetails {
    /// Merges one delta's `reasoning_details` array: `text` (and `summary`) fragments are appended,
    /// other non-empty fields are set.
    pub fn merge(&mut self, fragments: &[Value]) {
        for (position, fragment) in fragments.iter().enumerate() {
            let Some(obj) = fragment.as_object() else {
                continue;
            };
            let index = obj
                .get("index")
                .and_then(Value::as_u64)
                .unwrap_or(position as u64);
            let entry = self.entries.entry(index).or_default();
            for (key, value) in obj {
                match (key.as_str(), value) {
                    ("text" | "summary", Value::String(piece)) => {
                        let current = entry
                            .entry(key.clone())
                            .or_insert_with(|| Value::String(String::new()));
                        if let Value::String(text) = current {
                            text.push_str(piece);
                        }
                    }
                    (_, Value::String(s)) if s.is_empty() => {
                        entry.entry(key.clone()).or_insert_with(|| value.clone());
                    }
                    (_, Value::Null) => {}
                    _ => {
                        entry.insert(key.clone(), value.clone());
                    }
                }
            }
        }
    }

    /// Whether nothing was received.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The merged entries, in index order.
    pub fn to_value(&self) -> Value {
        Value::Array(self.entries.values().cloned().map(Value::Object).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fragments_merge_into_whole_entries() {
        let mut d = ReasoningDetails::default();
        d.merge(&[json!({"type": "reasoning.text", "text": "", "signature": "", "format": "f", "index": 0})]);
        d.merge(&[json!({"type": "reasoning.text", "text": "Two ", "format": "f", "index": 0})]);
        d.merge(&[
            json!({"type": "reasoning.text", "text": "plus two.", "format": "f", "index": 0}),
        ]);
        d.merge(&[
            json!({"type": "reasoning.text", "signature": "SIG==", "format": "f", "index": 0}),
        ]);
        d.merge(&[json!({"type": "reasoning.encrypted", "data": "xyz", "index": 1})]);
        assert_eq!(
            d.to_value(),
            json!([
                {"type": "reasoning.text", "text": "Two plus two.", "signature": "SIG==", "format": "f", "index": 0},
                {"type": "reasoning.encrypted", "data": "xyz", "index": 1}
            ])
        );
    }
}
