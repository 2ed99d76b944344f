//! The spend caps as front ends see and change them: each cap set, with what was spent against it.

use serde::{Deserialize, Serialize};

/// What a cap covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BudgetScope {
    /// One request (a message of the user, with every call it makes).
    Request,
    /// The session.
    Session,
    /// The local calendar day, across every session.
    Day,
    /// This run of TunaCode.
    Run,
}

impl BudgetScope {
    /// The scope a word names (`request`, `session`, `day`, `run`).
    pub fn parse(word: &str) -> Option<Self> {
        Some(match word {
            "request" => BudgetScope::Request,
            "session" => BudgetScope::Session,
            "day" | "daily" => BudgetScope::Day,
            "run" => BudgetScope::Run,
            _ => return None,
        })
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            BudgetScope::Request => "request",
            BudgetScope::Session => "session",
            BudgetScope::Day => "day",
            BudgetScope::Run => "run",
        }
    }
}

/// One cap and what was spent against it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapView {
    /// What it covers.
    pub scope: BudgetScope,
    /// The most USD, when capped in USD.
    pub usd: Option<f64>,
    /// The most tokens, when capped in tokens.
    pub tokens: Option<u64>,
    /// USD spent (and held by calls in flight).
    pub spent_usd: f64,
    /// Tokens spent (and held).
    pub spent_tokens: u64,
}

impl CapView {
    /// How much of the cap is used, 0 to 1 (the larger of its USD and token shares).
    pub fn used(&self) -> f64 {
        let usd = self
            .usd
            .map_or(0.0, |u| self.spent_usd / u.max(f64::EPSILON));
        let tokens = self
            .tokens
            .map_or(0.0, |t| self.spent_tokens as f64 / t.max(1) as f64);
        usd.max(tokens)
    }
}

/// Every cap set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BudgetView {
    /// The caps, request first.
    pub caps: Vec<CapView>,
}

impl BudgetView {
    /// The caps as text, a line each (`session: $1.20 of $5.00 (24%)`).
    pub fn describe(&self) -> String {
        if self.caps.is_empty() {
            return "No budget is set. `/budget SCOPE USD` sets one (scopes: request, session, day, \
                run; `/budget day 2M tokens` caps tokens), as does settings.budget in the config."
                .into();
        }
        let lines: Vec<String> = self
            .caps
            .iter()
            .map(|c| {
                let mut parts = Vec::new();
                if let Some(usd) = c.usd {
                    parts.push(format!("${:.2} of ${usd:.2}", c.spent_usd));
                }
                if let Some(tokens) = c.tokens {
                    parts.push(format!("{} of {tokens} tokens", c.spent_tokens));
                }
                format!(
                    "- {}: {} ({:.0}%)",
                    c.scope.name(),
                    parts.join(", "),
                    c.used() * 100.0
                )
            })
            .collect();
        format!(
            "Budget (checked before every model call):\n{}",
            lines.join("\n")
        )
    }

    /// The cap closest to being used up.
    pub fn tightest(&self) -> Option<&CapView> {
        self.caps
            .iter()
            .max_by(|a, b| a.used().total_cmp(&b.used()))
    }
}

/// A cap that cannot pay for the next model call: raise it (to `raise_to`) or stop the request?
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetQuestion {
    /// The cap.
    pub scope: BudgetScope,
    /// What is spent against what cap, in words.
    pub message: String,
    /// The cap it would become: the most USD.
    pub raise_to_usd: Option<f64>,
    /// The cap it would become: the most tokens.
    pub raise_to_tokens: Option<u64>,
}

impl BudgetQuestion {
    /// The raised cap in words (`$10.00`, `2000000 tokens`).
    pub fn raise_to(&self) -> String {
        let parts: Vec<String> = self
            .raise_to_usd
            .map(|u| format!("${u:.2}"))
            .into_iter()
            .chain(self.raise_to_tokens.map(|t| format!("{t} tokens")))
            .collect();
        parts.join(" and ")
    }
}
