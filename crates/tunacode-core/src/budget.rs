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
    /// A sub-agent's own cap has not enough left (never raised: the sub-agent stops, the others go
    /// on).
    #[error("the sub-agent's budget is exhausted: {spent} of {limit} spent")]
    SubagentCap {
        /// The cap.
        limit: String,
        /// What it spent against it.
        spent: String,
    },
}

/// What this runtime spent.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    run: Spend,
    request: Spend,
    /// What running sub-agents spent that their parent's session does not count yet (their usage
    /// joins it when they end): counted against the session cap meanwhile.
    children: Spend,
    /// The worst cases of calls in flight (sub-agents call in parallel): counted against every cap
    /// until each call settles.
    held: Spend,
}

/// A sub-agent's budget: its own cap, and the parent's budget each of its calls is also held
/// against (so parent and sub-agents together never pass the parent's caps).
#[derive(Debug)]
struct ParentLink {
    budget: Arc<Budget>,
    /// What the parent's session spent.
    session: crate::session::SessionHandle,
}

/// The budget of one runtime (shared by every engine it builds).
#[derive(Debug)]
pub struct Budget {
    caps: Mutex<BudgetCaps>,
    tally: Mutex<Tally>,
    /// The day's ledger (used while a daily cap is set).
    ledger: Option<SpendLedger>,
    /// For a sub-agent's budget: the parent's.
    parent: Option<ParentLink>,
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
    /// For a sub-agent's call: what the parent's budget holds for it.
    parent: Option<Box<Held>>,
}

impl Held {
    /// Nothing held (no caps).
    pub(crate) fn free() -> Held {
        Held {
            clamp: None,
            amount: Spend::default(),
            day_hold: None,
            free: true,
            parent: None,
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
            parent: None,
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
        if let Some(link) = &self.parent {
            return link.budget.cap(scope);
        }
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
        // A sub-agent's own cap is never raised: a raise is the parent's.
        if let Some(link) = &self.parent {
            return link.budget.set(scope, cap);
        }
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
        if let Some(link) = &self.parent {
            return link.budget.view(link.session_spend());
        }
        let caps = self.caps();
        let tally = *self.tally();
        let session = session.plus(tally.children);
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
        if let Some(link) = &self.parent {
            return self.hold_for_subagent(link, shape);
        }
        let caps = self.caps();
        if !caps.any() {
            return Ok(Held::free());
        }
        // The tally stays locked until this call's worst case is counted in it.
        let mut tally = self.tally();
        let c = &caps.config;
        let held = tally.held;
        let mut left = vec![
            left("request", c.request, tally.request.plus(held)),
            left(
                "session",
                c.session,
                session.plus(tally.children).plus(held),
            ),
            left("run", caps.run, tally.run.plus(held)),
        ];
        left.retain(|l| l.cap.is_set());
        let Some(ledger) = self.ledger.as_ref().filter(|_| c.day.is_set()) else {
            let (clamp, amount) = decide(shape, &left)?;
            tally.held = tally.held.plus(amount);
            return Ok(Held {
                clamp,
                amount,
                day_hold: None,
                free: false,
                parent: None,
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
        tally.held = tally.held.plus(amount);
        Ok(Held {
            clamp,
            amount,
            day_hold: held.map(|(id, ())| (today, id)),
            free: false,
            parent: None,
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
        let worst = held.parent.as_ref().map_or(held.amount, |p| {
            if p.amount.usd > held.amount.usd {
                p.amount
            } else {
                held.amount
            }
        });
        let spent = match usage {
            Some(u) => spend_of(u, pricing),
            None if billed => worst,
            None => Spend::default(),
        };
        {
            let mut tally = self.tally();
            tally.run = tally.run.plus(spent);
            tally.request = tally.request.plus(spent);
            tally.held = less(tally.held, held.amount);
        }
        if let Some(link) = &self.parent {
            let parent = &link.budget;
            if let Some(parent_held) = held.parent {
                parent.settle_spent(*parent_held, spent);
            }
            let mut tally = parent.tally();
            tally.children = tally.children.plus(spent);
        }
        if let (Some(ledger), Some((day, id))) = (&self.ledger, held.day_hold)
            && let Err(e) = ledger.settle(&day, &id, spent)
        {
            tracing::warn!(error = %e, "settling the day's spend");
        }
        spent
    }

    /// Settles `held` at `spent`, already priced (a sub-agent's call, settled in its parent's).
    fn settle_spent(&self, held: Held, spent: Spend) {
        if held.is_free() {
            return;
        }
        {
            let mut tally = self.tally();
            tally.run = tally.run.plus(spent);
            tally.request = tally.request.plus(spent);
            tally.held = less(tally.held, held.amount);
        }
        if let (Some(ledger), Some((day, id))) = (&self.ledger, held.day_hold)
            && let Err(e) = ledger.settle(&day, &id, spent)
        {
            tracing::warn!(error = %e, "settling the day's spend");
        }
    }

    /// Whether any cap applies to the calls made under this budget (a sub-agent's own, or its
    /// parent's).
    pub fn capped(&self) -> bool {
        self.caps().any() || self.parent.as_ref().is_some_and(|l| l.budget.capped())
    }

    /// A sub-agent's budget under this one: its own `cap` (unset: none of its own), every call also
    /// held against this budget, whose session is `session`.
    pub(crate) fn child(
        self: &Arc<Self>,
        session: crate::session::SessionHandle,
        cap: Cap,
    ) -> Arc<Budget> {
        let mut caps = BudgetCaps::default();
        caps.config.request = cap;
        Arc::new(Budget {
            caps: Mutex::new(caps),
            tally: Mutex::default(),
            ledger: None,
            parent: Some(ParentLink {
                budget: self.clone(),
                session,
            }),
        })
    }

    /// A share of what is left under this budget's tightest cap (request, session, run; `session`:
    /// what the session spent) for one of `ways` sub-agents running at once; unset when nothing caps.
    pub(crate) fn share(&self, ways: usize, session: Spend) -> Cap {
        let caps = self.caps();
        let tally = *self.tally();
        let scopes = [
            (caps.config.request, tally.request),
            (caps.config.session, session.plus(tally.children)),
            (caps.run, tally.run),
        ];
        let ways = ways.max(1);
        let mut share = Cap::default();
        for (cap, taken) in scopes {
            if let Some(usd) = cap.usd {
                let part = (usd - taken.usd).max(0.0) / ways as f64;
                share.usd = Some(share.usd.map_or(part, |s: f64| s.min(part)));
            }
            if let Some(tokens) = cap.tokens {
                let part = tokens.saturating_sub(taken.tokens) / ways as u64;
                share.tokens = Some(share.tokens.map_or(part, |s: u64| s.min(part)));
            }
        }
        share
    }

    /// A sub-agent under this budget ended and its usage joined the parent's session: its spend is
    /// no longer counted apart.
    pub(crate) fn child_ended(&self, child: &Budget) {
        let spent = child.tally().run;
        let mut tally = self.tally();
        tally.children = less(tally.children, spent);
    }

    /// A sub-agent's call: its own cap first (never raised), then the parent's caps.
    fn hold_for_subagent(&self, link: &ParentLink, shape: CallShape) -> Result<Held, BudgetStop> {
        let own = self.caps().config.request;
        let mut tally = self.tally();
        let taken = tally.request.plus(tally.held);
        let (own_clamp, amount) = if own.is_set() {
            decide(shape, &[left("request", own, taken)]).map_err(|stop| match stop {
                BudgetStop::Exhausted { limit, spent, .. } => {
                    BudgetStop::SubagentCap { limit, spent }
                }
                other => other,
            })?
        } else {
            (None, Spend::default())
        };
        let parent = link.budget.hold(shape, link.session_spend())?;
        tally.held = tally.held.plus(amount);
        let clamp = match (own_clamp, parent.clamp) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Ok(Held {
            clamp,
            amount,
            day_hold: None,
            free: false,
            parent: Some(Box::new(parent)),
        })
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

impl ParentLink {
    /// What the parent's session spent.
    fn session_spend(&self) -> Spend {
        let total = self.session.lock().usage.session_total;
        Spend {
            usd: total.cost,
            tokens: total.request_tokens + total.response_tokens,
        }
    }
}

/// `a` less `b`, never below nothing.
fn less(a: Spend, b: Spend) -> Spend {
    Spend {
        usd: (a.usd - b.usd).max(0.0),
        tokens: a.tokens.saturating_sub(b.tokens),
    }
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
#[path = "budget_tests.rs"]
mod tests;
