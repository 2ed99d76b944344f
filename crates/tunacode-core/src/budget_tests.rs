//! The budget's own tests.

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
fn a_call_that_broke_off_without_usage_counts_at_its_worst_case_and_one_never_started_at_nothing() {
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

fn usd(amount: f64) -> Cap {
    Cap {
        usd: Some(amount),
        tokens: None,
    }
}

fn parent_with_run_cap(amount: f64) -> std::sync::Arc<Budget> {
    std::sync::Arc::new(Budget::new(
        BudgetCaps {
            run: usd(amount),
            ..BudgetCaps::default()
        },
        None,
    ))
}

fn session() -> crate::session::SessionHandle {
    crate::session::SessionHandle::new(crate::session::Session::new(
        std::path::Path::new("/w"),
        "m",
    ))
}

#[test]
fn a_sub_agent_s_calls_count_against_its_own_cap_and_its_parent_s_together() {
    // Each call: $1 in + $1 out at most; $2 reported.
    let parent = parent_with_run_cap(5.0);
    let child = parent.child(session(), usd(3.0));
    assert!(child.capped());
    let held = child.hold(shape(), Spend::default()).unwrap();
    let usage = tunacode_protocol::Usage {
        request_tokens: 1000,
        response_tokens: 1000,
        ..Default::default()
    };
    child.settle(held, Some(&usage), (shape().pricing, true));
    // Its own cap has $1 left: not enough for a call's minimum answer, and never raised.
    let stop = child.hold(shape(), Spend::default()).unwrap_err();
    assert!(
        matches!(stop, super::BudgetStop::SubagentCap { .. }),
        "{stop:?}"
    );
    // The parent counts the $2 in its run: $3 left, one more $2 call of its own fits, not two.
    let view = parent.view(Spend::default());
    assert!((view.caps[0].spent_usd - 2.0).abs() < 1e-9, "{view:?}");
    let held = parent.hold(shape(), Spend::default()).unwrap();
    parent.settle(held, Some(&usage), (shape().pricing, true));
    assert!(parent.hold(shape(), Spend::default()).is_err());
}

#[test]
fn a_share_is_what_the_tightest_cap_leaves_split_between_the_places() {
    let parent = parent_with_run_cap(8.0);
    assert_eq!(parent.share(4, Spend::default()).usd, Some(2.0));
    assert_eq!(
        Budget::unlimited().share(4, Spend::default()),
        Cap::default()
    );
    // What running sub-agents spent counts against the session cap until their usage joins it.
    let session_capped = std::sync::Arc::new(Budget::new(
        BudgetCaps {
            config: tunacode_store::BudgetConfig {
                session: usd(4.0),
                ..Default::default()
            },
            ..BudgetCaps::default()
        },
        None,
    ));
    let child = session_capped.child(session(), Cap::default());
    let held = child.hold(shape(), Spend::default()).unwrap();
    child.settle(held, None, (shape().pricing, true));
    assert_eq!(session_capped.share(1, Spend::default()).usd, Some(2.0));
    session_capped.child_ended(&child);
    assert_eq!(session_capped.share(1, Spend::default()).usd, Some(4.0));
}

#[test]
fn calls_in_flight_at_once_never_take_the_same_room_twice() {
    // $5 run cap; each call's worst case is $2: two fit in flight together, a third does not,
    // whether the calls are the parent's or its sub-agents'.
    let parent = parent_with_run_cap(5.0);
    let (one, two) = (
        parent.child(session(), Cap::default()),
        parent.child(session(), Cap::default()),
    );
    let first = one.hold(shape(), Spend::default()).unwrap();
    let second = two.hold(shape(), Spend::default()).unwrap();
    let third = parent.hold(shape(), Spend::default());
    assert!(
        third.is_err() || third.as_ref().is_ok_and(|h| h.clamp.is_some()),
        "$4 held of $5: the third call cannot hold its whole worst case"
    );
    // Settled cheaper than held, the room comes back.
    let usage = tunacode_protocol::Usage {
        request_tokens: 100,
        response_tokens: 100,
        ..Default::default()
    };
    one.settle(first, Some(&usage), (shape().pricing, true));
    two.settle(second, Some(&usage), (shape().pricing, true));
    if let Ok(held) = third {
        parent.settle(held, Some(&usage), (shape().pricing, true));
    }
    let again = parent.hold(shape(), Spend::default()).unwrap();
    assert_eq!(
        again.clamp, None,
        "$0.60 spent, nothing held: a whole call fits"
    );
}
