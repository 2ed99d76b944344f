//! `settings.budget`: spend caps per request, per session and per day (across every session), each
//! in USD and/or tokens, e.g. `{"request": {"usd": 0.5}, "day": {"usd": 10, "tokens": 5000000}}`.

use serde::{Deserialize, Serialize};

/// One cap: USD, tokens (input + output), or both; unset means no cap.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Cap {
    /// Most USD to spend.
    pub usd: Option<f64>,
    /// Most tokens to spend.
    pub tokens: Option<u64>,
}

impl Cap {
    /// Whether it caps anything.
    pub fn is_set(&self) -> bool {
        self.usd.is_some() || self.tokens.is_some()
    }
}

/// The caps of `settings.budget`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct BudgetConfig {
    /// Per request (one message of the user, with every call it makes).
    pub request: Cap,
    /// Per session (resumed sessions count what they spent before).
    pub session: Cap,
    /// Per local calendar day, across every session and process of this user.
    pub day: Cap,
}
