//! The budget around each model call of a request: the call's worst case is held before it is sent
//! (its `max_tokens` clamped when only a shorter answer fits; not sent at all when not even that
//! does), and settled to what the provider reports once it answers.

use tunacode_protocol::{NoticeLevel, Usage};

use super::request::{Interrupt, Request};
use crate::agent::AgentOptions;
use crate::budget::{Budget, BudgetStop, Held};
use crate::budget_plan::CallShape;
use tunacode_protocol::runtime::{BudgetQuestion, RuntimeEvent};
use tunacode_store::Cap;

/// The output a call may write when neither the config nor the catalogue says.
const UNKNOWN_OUTPUT_LIMIT: u64 = 32_000;

/// Holds the worst case of a call to the model of `options` of `input_tokens` (counted only when a cap is set) that may write
/// `max_output` (the model's limit when `None`); the `max_tokens` to send instead when the budget
/// clamps it.
pub(super) async fn hold(
    req: &Request<'_>,
    options: &AgentOptions,
    input_tokens: impl FnOnce() -> u64,
    max_output: Option<u64>,
) -> Result<Held, Interrupt> {
    let agent = req.agent;
    let budget = agent.budget.clone();
    if !budget.capped() {
        return Ok(Held::free());
    }
    let shape = CallShape {
        input_tokens: input_tokens(),
        max_output: max_output
            .or(options.context.max_output)
            .unwrap_or(UNKNOWN_OUTPUT_LIMIT),
        pricing: options.pricing,
    };
    let session = session_spend(req);
    let held = loop {
        let holding = budget.clone();
        let held = tokio::task::spawn_blocking(move || holding.hold(shape, session))
            .await
            .map_err(|e| Interrupt::Internal(e.to_string()))?;
        match held {
            Ok(held) => break held,
            Err(stop) => raise_or_stop(req, &budget, stop).await?,
        }
    };
    if let Some(clamp) = held.clamp {
        req.notice(
            NoticeLevel::Warning,
            format!("The budget leaves room for a shorter answer: this call may write at most {clamp} tokens."),
        );
    }
    Ok(held)
}

/// A cap stopped the call: the user may raise it (to twice what it is) and the call is planned again;
/// otherwise the request stops with `stop`.
async fn raise_or_stop(
    req: &Request<'_>,
    budget: &Budget,
    stop: BudgetStop,
) -> Result<(), Interrupt> {
    let BudgetStop::Exhausted { scope, .. } = &stop else {
        return Err(Interrupt::Budget(stop));
    };
    let scope = *scope;
    let cap = budget.cap(scope);
    let question = BudgetQuestion {
        scope,
        message: stop.to_string(),
        raise_to_usd: cap.usd.map(|u| u * 2.0),
        raise_to_tokens: cap.tokens.map(|t| t * 2),
    };
    let raise = tokio::select! {
        raise = req.agent.approver.on_budget(&question) => raise,
        _ = req.cancel.cancelled() => return Err(Interrupt::Cancelled),
    };
    if !raise {
        return Err(Interrupt::Budget(stop));
    }
    let raised = Cap {
        usd: question.raise_to_usd,
        tokens: question.raise_to_tokens,
    };
    budget.set(scope, raised);
    req.notice(
        NoticeLevel::Info,
        format!(
            "The {} budget is now {}.",
            scope.name(),
            question.raise_to()
        ),
    );
    Ok(())
}

/// Settles `held` to the `usage` the call reported, priced as the model of `options` is; without
/// usage, a call the provider had started (`billed`: it broke off or was cancelled mid-answer) counts
/// at its worst case.
pub(super) async fn settle(
    req: &Request<'_>,
    options: &AgentOptions,
    held: Held,
    (usage, billed): (Option<Usage>, bool),
) {
    if held.is_free() {
        return;
    }
    let (budget, pricing) = (req.agent.budget.clone(), options.pricing);
    let before = session_spend(req);
    // Settled, then the caps with their spend said at once (the status line follows every call).
    let settled = tokio::task::spawn_blocking(move || {
        let counted = budget.settle(held, usage.as_ref(), (pricing, billed));
        budget.view(before.plus(counted))
    })
    .await;
    match settled {
        Ok(view) => req.agent.events.send(RuntimeEvent::Budget(view)),
        Err(e) => tracing::error!(error = %e, "settling a call's spend"),
    }
}

/// What the session spent before this call.
fn session_spend(req: &Request) -> tunacode_store::Spend {
    let total = req.agent.session.lock().usage.session_total;
    tunacode_store::Spend {
        usd: total.cost,
        tokens: total.request_tokens + total.response_tokens,
    }
}
