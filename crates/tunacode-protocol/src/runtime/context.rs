//! [`ContextBreakdown`]: what the next request to the model holds, part by part, against its
//! context window: the same figures in `/context`, `tunacode context` and stream-json's `context`.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The next request's size by what fills it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ContextBreakdown {
    /// `provider:model`.
    pub model: String,
    /// The model's context window in tokens, when known.
    pub window: Option<u64>,
    /// How tokens are counted: `o200k` (OpenAI's tokenizer) or `estimate` (4 characters a token).
    pub counter: String,
    /// The parts, in the order the request carries them; their tokens add up to `total`.
    pub sections: Vec<ContextSection>,
    /// Tokens of the whole request.
    pub total: u64,
    /// Where automatic compaction starts, when the window is known.
    pub compact_at: Option<u64>,
}

/// One part of the request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ContextSection {
    /// What it is: `system prompt`, `instruction files`, `skills`, `built-in tools`, `MCP tools`,
    /// `conversation`, `attachments`, `request framing`.
    pub name: String,
    /// Its tokens.
    pub tokens: u64,
    /// What it is made of (files, skills, servers), each with its tokens; empty when not split.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<ContextItem>,
}

/// One thing in a section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ContextItem {
    /// Its name (a path, a skill, a server).
    pub name: String,
    /// Its tokens.
    pub tokens: u64,
}

impl ContextBreakdown {
    /// Tokens left in the window, when it is known.
    pub fn free(&self) -> Option<u64> {
        self.window.map(|w| w.saturating_sub(self.total))
    }

    /// The breakdown as a person reads it: a line per part with its share of the window.
    pub fn render(&self) -> String {
        let counted = if self.counter == "o200k" {
            "counted with OpenAI's tokenizer"
        } else {
            "estimated at 4 characters a token"
        };
        let mut text = format!(
            "Context of the next request to {} ({counted}):\n",
            self.model
        );
        let share = |tokens: u64| match self.window {
            Some(w) if w > 0 => format!("{:>5.1}%", tokens as f64 * 100.0 / w as f64),
            _ => String::new(),
        };
        for section in &self.sections {
            let _ = writeln!(
                text,
                "  {:<20} {:>9} tokens {}",
                section.name,
                thousands(section.tokens),
                share(section.tokens)
            );
            for item in &section.items {
                let _ = writeln!(
                    text,
                    "      {:<40} {:>9}",
                    item.name,
                    thousands(item.tokens)
                );
            }
        }
        let _ = writeln!(
            text,
            "  {:<20} {:>9} tokens {}",
            "total",
            thousands(self.total),
            share(self.total)
        );
        match (self.window, self.free(), self.compact_at) {
            (Some(window), Some(free), Some(at)) => {
                let _ = write!(
                    text,
                    "  {:<20} {:>9} tokens of {} (compaction starts at {})",
                    "free",
                    thousands(free),
                    thousands(window),
                    thousands(at)
                );
            }
            _ => {
                let _ = write!(
                    text,
                    "The context window of {} is unknown, so nothing is compacted automatically. \
                     Set it with `/context window N` (saved as models.\"{}\".context_window).",
                    self.model, self.model
                );
            }
        }
        text
    }
}

/// `12345` as `12,345`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn breakdown(window: Option<u64>) -> ContextBreakdown {
        ContextBreakdown {
            model: "openai:gpt-4.1".into(),
            window,
            counter: "o200k".into(),
            sections: vec![
                ContextSection {
                    name: "system prompt".into(),
                    tokens: 1200,
                    items: vec![],
                },
                ContextSection {
                    name: "instruction files".into(),
                    tokens: 300,
                    items: vec![ContextItem {
                        name: "AGENTS.md".into(),
                        tokens: 300,
                    }],
                },
            ],
            total: 1500,
            compact_at: window.map(|w| w * 85 / 100),
        }
    }

    #[test]
    fn the_breakdown_reads_with_shares_of_the_window_and_says_an_unknown_one() {
        let text = breakdown(Some(10_000)).render();
        assert!(
            text.contains("  system prompt            1,200 tokens  12.0%"),
            "{text}"
        );
        assert!(text.contains("      AGENTS.md"), "{text}");
        assert!(
            text.contains(
                "free                     8,500 tokens of 10,000 (compaction starts at 8,500)"
            ),
            "{text}"
        );
        let unknown = breakdown(None).render();
        assert!(
            unknown.contains("is unknown") && unknown.contains("/context window N"),
            "{unknown}"
        );
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(12), "12");
    }
}
