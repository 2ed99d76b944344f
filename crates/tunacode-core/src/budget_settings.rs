//! The budget as settings resolve it: `settings.budget` and `--max-cost`, each checked (a cap is a
//! positive finite number), and a USD cap refused for a model whose price is unknown, since that
//! model would be priced at $0 and never stop.

use tunacode_llm::ModelId;
use tunacode_llm::models::Pricing;
use tunacode_store::{BudgetConfig, Cap, Paths, UserConfig};

use crate::settings_error::SettingsError;

/// The caps, with the run's own (`--max-cost`: this process's spend).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BudgetCaps {
    /// `settings.budget`.
    pub config: BudgetConfig,
    /// This run of TunaCode.
    pub run: Cap,
}

impl BudgetCaps {
    /// Whether any cap is in USD (which needs the model's price).
    pub fn in_usd(&self) -> bool {
        let c = &self.config;
        [c.request, c.session, c.day, self.run]
            .iter()
            .any(|cap| cap.usd.is_some())
    }

    /// Whether anything is capped.
    pub fn any(&self) -> bool {
        let c = &self.config;
        [c.request, c.session, c.day, self.run]
            .iter()
            .any(Cap::is_set)
    }
}

/// The caps of `config`, with `max_cost` (`--max-cost`) for this run.
pub(crate) fn resolve_budget(
    config: &UserConfig,
    max_cost: Option<f64>,
) -> Result<BudgetCaps, SettingsError> {
    let caps = BudgetCaps {
        config: config.settings.budget,
        run: Cap {
            usd: max_cost,
            tokens: None,
        },
    };
    let c = &caps.config;
    for (name, cap) in [
        ("settings.budget.request", c.request),
        ("settings.budget.session", c.session),
        ("settings.budget.day", c.day),
        ("--max-cost", caps.run),
    ] {
        if let Some(usd) = cap.usd.filter(|u| !u.is_finite() || *u <= 0.0) {
            return Err(SettingsError::Invalid(format!(
                "{name}: a cost cap must be a positive number of USD, got {usd}"
            )));
        }
        if cap.tokens == Some(0) {
            return Err(SettingsError::Invalid(format!(
                "{name}: a token cap must be positive"
            )));
        }
    }
    Ok(caps)
}

/// Refuses a USD cap for `model` when its price is unknown.
pub(crate) fn check_priced(
    caps: &BudgetCaps,
    model: &ModelId,
    pricing: Option<Pricing>,
    paths: &Paths,
) -> Result<(), SettingsError> {
    if !caps.in_usd() || pricing.is_some_and(|p| p.is_known()) {
        return Ok(());
    }
    Err(SettingsError::Invalid(format!(
        "a budget in USD is set, but the price of {model} is unknown, so its calls could not be \
         counted. Set it (USD per million tokens) in {}: \"models\": {{\"{model}\": {{\"input\": 3, \
         \"output\": 15}}}}, or cap this model in tokens instead",
        paths.config_file.display()
    )))
}
