//! The budget operations: saying the caps with what was spent against them, and setting one for the
//! rest of the run (a USD cap only for a model whose price is known).

use tunacode_protocol::runtime::{BudgetScope, BudgetView};
use tunacode_store::{Cap, Spend};

use crate::agent::Agent;
use crate::budget::Budget;
use crate::runtime::blocking::off_thread;
use crate::runtime::events::OpFailure;

/// The caps and the spend against them, read off the async threads (the day's ledger).
pub(super) async fn budget_view(
    budget: std::sync::Arc<Budget>,
    agent: &Agent,
) -> Result<BudgetView, OpFailure> {
    let total = agent.session().lock().usage.session_total;
    let session = Spend {
        usd: total.cost,
        tokens: total.request_tokens + total.response_tokens,
    };
    off_thread("reading the budget", move || Ok(budget.view(session))).await
}

/// Checks and sets the cap of `scope` (`usd` and `tokens` both `None` removes it).
pub(super) fn set_cap(
    budget: &Budget,
    agent: &Agent,
    scope: BudgetScope,
    (usd, tokens): (Option<f64>, Option<u64>),
) -> Result<(), OpFailure> {
    if usd.is_some_and(|u| !u.is_finite() || u <= 0.0) || tokens == Some(0) {
        return Err(OpFailure::Invalid(
            "a cap is a positive number of USD or tokens".into(),
        ));
    }
    // Every model that may answer, the fallback models too, must have a price.
    let unpriced = std::iter::once(agent.options())
        .chain(agent.fallbacks().iter().map(|f| &f.options))
        .find(|o| !o.pricing.is_some_and(|p| p.is_known()));
    if let Some(options) = unpriced.filter(|_| usd.is_some()) {
        return Err(OpFailure::Invalid(format!(
            "the price of {} is unknown, so a cap in USD could not be kept: set its price in the \
             config's \"models\" (USD per million tokens), or cap it in tokens",
            options.model
        )));
    }
    budget.set(scope, Cap { usd, tokens });
    Ok(())
}
