//! [`Budget`]: the spend caps of one runtime, checked before every model call the agent makes (the
//! request's calls and compaction's): the call's worst case is planned against every cap
//! (`budget_plan.rs`), held (the day's in the shared ledger, so concurrent sessions never take the
//! last of it twice), and settled to the real usage once the call answers.

use std::sync::{Arc, Mutex};

use tunacode_llm::models::Pricing;
use tunacode_protocol::Usage;
use tunacode_protocol::runtime::{BudgetScope, BudgetView, CapView};
use tunacode_store::{Cap, Spend, SpendLedger, StoreError};

use crate::budget_plan::{CallShape, Left, Plan, plan};
pub use crate::budget_settings::BudgetCaps;

/// Why a call was not made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BudgetStop {
    /// A cap has not enough left for a short answer.
    #[error(
        "the {} budget is exhausted: {spent} of {limit} spent, not enough left for another call",
        .scope.name()
    )]
    Exhausted {
        /// The cap.
        scope: BudgetScope,
        /// The cap, as the user set it.
        limit: String,
        /// What was spent (and held by calls in flight) against it.
        spent: String,
    },
    /// The day's ledger could not be read or written.
    #[error("the day's spend could not be checked: {0}")]
    Ledger(String),
}

/// What this runtime spent.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    run: Spend,
    request: Spend,
}

/// The budget of one runtime (shared by every engine it builds).
#[derive(Debug)]
pub struct Budget {
    caps: Mutex<BudgetCaps>,
    tally: Mutex<Tally>,
    /// The day's ledger (used while a daily cap is set).
    ledger: Option<SpendLedger>,
}

/// A call's worst case, held until it settles.
#[derive(Debug)]
pub(crate) struct Held {
    /// The `max_tokens` to send when the budget clamps it.
    pub(crate) clamp: Option<u64>,
    /// The worst case held (what a call that broke off without saying its usage is counted at).
    amount: Spend,
    day_hold: Option<(String, String)>,
    free: bool,
}

impl Held {
    /// Nothing held (no caps).
    pub(crate) fn free() -> Held {
        Held {
            clamp: None,
            amount: Spend::default(),
            day_hold: None,
            free: true,
        }
    }

    /// Whether nothing was held.
    pub(crate) fn is_free(&self) -> bool {
        self.free
    }
}

impl Budget {
    /// No caps.
    pub fn unlimited() -> Arc<Budget> {
        Arc::new(Budget::new(BudgetCaps::default(), None))
    }

    /// `caps`, with the day's ledger in `data_dir` (needed for a daily cap).
    pub fn new(caps: BudgetCaps, data_dir: Option<&std::path::Path>) -> Budget {
        Budget {
            caps: Mutex::new(caps),
            tally: Mutex::default(),
            ledger: data_dir.map(SpendLedger::new),
        }
    }

    /// The budget of a runtime under `caps`, its day ledger in the data dir of `paths`.
    pub fn for_runtime(caps: BudgetCaps, paths: &tunacode_store::Paths) -> Arc<Budget> {
        Arc::new(Budget::new(caps, Some(&paths.data_dir())))
    }

    /// The caps.
    pub fn caps(&self) -> BudgetCaps {
        *self.caps.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The cap of `scope`.
    pub fn cap(&self, scope: BudgetScope) -> Cap {
        let caps = self.caps();
        match scope {
            BudgetScope::Request => caps.config.request,
            BudgetScope::Session => caps.config.session,
            BudgetScope::Day => caps.config.day,
            BudgetScope::Run => caps.run,
        }
    }

    /// Sets the cap of `scope` for the rest of this runtime (an unset `cap` removes it).
    pub fn set(&self, scope: BudgetScope, cap: Cap) {
        let mut caps = self.caps.lock().unwrap_or_else(|p| p.into_inner());
        match scope {
            BudgetScope::Request => caps.config.request = cap,
            BudgetScope::Session => caps.config.session = cap,
            BudgetScope::Day => caps.config.day = cap,
            BudgetScope::Run => caps.run = cap,
        }
    }

    /// Every cap set, with what was spent against it (`session`: the session's spend). Blocking
    /// when a daily cap is set (reads the day's ledger).
    pub fn view(&self, session: Spend) -> BudgetView {
        let caps = self.caps();
        let tally = *self.tally();
        let day = || {
            self.ledger
                .as_ref()
                .and_then(|l| l.taken(&today()).ok())
                .unwrap_or_default()
        };
        let scopes = [
            (BudgetScope::Request, caps.config.request),
            (BudgetScope::Session, caps.config.session),
            (BudgetScope::Day, caps.config.day),
            (BudgetScope::Run, caps.run),
        ];
        let caps = scopes
            .into_iter()
            .filter(|(_, cap)| cap.is_set())
            .map(|(scope, cap)| {
                let spent = match scope {
                    BudgetScope::Request => tally.request,
                    BudgetScope::Session => session,
                    BudgetScope::Day => day(),
                    BudgetScope::Run => tally.run,
                };
                CapView {
                    scope,
                    usd: cap.usd,
                    tokens: cap.tokens,
                    spent_usd: spent.usd,
                    spent_tokens: spent.tokens,
                }
            })
            .collect();
        BudgetView { caps }
    }

    /// A new request starts: its own spend is zero.
    pub(crate) fn start_request(&self) {
        self.tally().request = Spend::default();
    }

    /// Plans and holds a call of `shape` (`session`: what the session spent so far). Blocking (the
    /// day's ledger): call off the async threads.
    pub(crate) fn hold(&self, shape: CallShape, session: Spend) -> Result<Held, BudgetStop> {
        let caps = self.caps();
        if !caps.any() {
            return Ok(Held::free());
        }
        let tally = *self.tally();
        let c = &caps.config;
        let mut left = vec![
            left("request", c.request, tally.request),
            left("session", c.session, session),
            left("run", caps.run, tally.run),
        ];
        left.retain(|l| l.cap.is_set());
        let Some(ledger) = self.ledger.as_ref().filter(|_| c.day.is_set()) else {
            return decide(shape, &left).map(|(clamp, amount)| Held {
                clamp,
                amount,
                day_hold: None,
                free: false,
            });
        };
        let today = today();
        let mut decided = None;
        let held = ledger
            .hold(&today, |day| {
                let mut all = left.clone();
                all.push(self::left("day", c.day, day));
                let decision = decide(shape, &all);
                let hold = decision.as_ref().ok().map(|(_, hold)| (*hold, ()));
                decided = Some(decision);
                hold
            })
            .map_err(ledger_failure)?;
        let (clamp, amount) = decided.expect("the ledger asks for the decision")?;
        Ok(Held {
            clamp,
            amount,
            day_hold: held.map(|(id, ())| (today, id)),
            free: false,
        })
    }

    /// The call of `held` answered with `usage`, priced with `pricing` when the provider did not say
    /// the cost. Without usage, a call the provider had started (`billed`) counts at its worst case;
    /// one that never started counts nothing. Blocking, like [`Budget::hold`].
    pub(crate) fn settle(
        &self,
        held: Held,
        usage: Option<&Usage>,
        (pricing, billed): (Option<Pricing>, bool),
    ) -> Spend {
        let spent = match usage {
            Some(u) => spend_of(u, pricing),
            None if billed => held.amount,
            None => Spend::default(),
        };
        {
            let mut tally = self.tally();
            tally.run = tally.run.plus(spent);
            tally.request = tally.request.plus(spent);
        }
        if let (Some(ledger), Some((day, id))) = (&self.ledger, held.day_hold)
            && let Err(e) = ledger.settle(&day, &id, spent)
        {
            tracing::warn!(error = %e, "settling the day's spend");
        }
        spent
    }

    fn tally(&self) -> std::sync::MutexGuard<'_, Tally> {
        self.tally.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What a call with `usage` cost (the provider's figure, else the price of its tokens).
pub fn spend_of(usage: &Usage, pricing: Option<Pricing>) -> Spend {
    let usd = if usage.cost > 0.0 {
        usage.cost
    } else {
        pricing.map_or(0.0, |p| p.cost(usage))
    };
    Spend {
        usd,
        tokens: usage.request_tokens + usage.response_tokens,
    }
}

fn left(scope: &'static str, cap: Cap, taken: Spend) -> Left {
    Left { scope, cap, taken }
}

/// The plan as a clamp and a hold, or the stop.
fn decide(shape: CallShape, left: &[Left]) -> Result<(Option<u64>, Spend), BudgetStop> {
    match plan(shape, left) {
        Plan::Go {
            max_output,
            clamped,
            hold,
        } => Ok((clamped.then_some(max_output), hold)),
        Plan::Stop { scope, cap, taken } => Err(BudgetStop::Exhausted {
            scope: BudgetScope::parse(scope).unwrap_or(BudgetScope::Run),
            limit: describe(cap.usd, cap.tokens),
            spent: describe(cap.usd.map(|_| taken.usd), cap.tokens.map(|_| taken.tokens)),
        }),
    }
}

/// `$1.50`, `200000 tokens`, or both.
fn describe(usd: Option<f64>, tokens: Option<u64>) -> String {
    let parts: Vec<String> = usd
        .map(|u| format!("${u:.2}"))
        .into_iter()
        .chain(tokens.map(|t| format!("{t} tokens")))
        .collect();
    parts.join(" and ")
}

fn ledger_failure(e: StoreError) -> BudgetStop {
    BudgetStop::Ledger(e.to_string())
}

/// The local calendar day.
fn today() -> String {
    chrono::Local::now().format("%Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use tunacode_llm::models::Pricing;
    use tunacode_store::{Cap, Spend};

    use super::{Budget, BudgetCaps};
    use crate::budget_plan::CallShape;

    fn shape() -> CallShape {
        CallShape {
            input_tokens: 1000,
            max_output: 1000,
            pricing: Some(Pricing {
                input: 1000.0,
                output: 1000.0,
                cache_read: 0.0,
                cache_write: 0.0,
            }),
        }
    }

    #[test]
    fn a_call_that_broke_off_without_usage_counts_at_its_worst_case_and_one_never_started_at_nothing()
     {
        let caps = BudgetCaps {
            run: Cap {
                usd: Some(10.0),
                tokens: None,
            },
            ..BudgetCaps::default()
        };
        let budget = Budget::new(caps, None);
        let held = budget.hold(shape(), Spend::default()).unwrap();
        budget.settle(held, None, (shape().pricing, true));
        let spent = budget.view(Spend::default()).caps[0].spent_usd;
        assert!(
            (spent - 2.0).abs() < 1e-9,
            "1000 in + 1000 out at $1000/M: {spent}"
        );
        let held = budget.hold(shape(), Spend::default()).unwrap();
        budget.settle(held, None, (shape().pricing, false));
        assert!((budget.view(Spend::default()).caps[0].spent_usd - 2.0).abs() < 1e-9);
    }
}
