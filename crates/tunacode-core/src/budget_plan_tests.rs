//! Planning a call under caps.

use super::*;

fn priced() -> Option<Pricing> {
    // $1 per million input, $10 per million output, cache writes at $1.25.
    Some(Pricing {
        input: 1.0,
        output: 10.0,
        cache_read: 0.1,
        cache_write: 1.25,
    })
}

fn usd_cap(scope: &'static str, cap: f64, taken: f64) -> Left {
    Left {
        scope,
        cap: Cap {
            usd: Some(cap),
            tokens: None,
        },
        taken: Spend {
            usd: taken,
            tokens: 0,
        },
    }
}

const SHAPE: CallShape = CallShape {
    input_tokens: 100_000,
    max_output: 32_000,
    pricing: None,
};

#[test]
fn a_call_that_fits_is_not_clamped_and_holds_its_worst_case_at_the_dearest_input_price() {
    let shape = CallShape {
        pricing: priced(),
        ..SHAPE
    };
    let Plan::Go {
        max_output,
        clamped,
        hold,
    } = plan(shape, &[usd_cap("session", 10.0, 1.0)])
    else {
        panic!("fits")
    };
    assert_eq!((max_output, clamped), (32_000, false));
    // 100k input at $1.25 (cache write) + 32k output at $10 per million.
    assert!((hold.usd - (0.125 + 0.32)).abs() < 1e-9, "{hold:?}");
    assert_eq!(hold.tokens, 132_000);
}

#[test]
fn the_tightest_cap_clamps_the_output_and_stops_when_not_even_a_short_answer_fits() {
    let shape = CallShape {
        pricing: priced(),
        ..SHAPE
    };
    // $0.225 left in the day: $0.125 of input, room for 10,000 output tokens.
    let left = [usd_cap("session", 10.0, 0.0), usd_cap("day", 5.0, 4.775)];
    assert!(matches!(
        plan(shape, &left),
        Plan::Go {
            max_output: 9_999..=10_000,
            clamped: true,
            ..
        }
    ));
    let left = [usd_cap("session", 10.0, 0.0), usd_cap("day", 5.0, 4.87)];
    assert!(matches!(
        plan(shape, &left),
        Plan::Stop { scope: "day", .. }
    ));
}

#[test]
fn token_caps_count_input_and_output() {
    let left = [Left {
        scope: "request",
        cap: Cap {
            usd: None,
            tokens: Some(105_000),
        },
        taken: Spend::default(),
    }];
    assert!(matches!(
        plan(SHAPE, &left),
        Plan::Go {
            max_output: 5_000,
            clamped: true,
            ..
        }
    ));
    let spent = [Left {
        taken: Spend {
            usd: 0.0,
            tokens: 4_500,
        },
        ..left[0]
    }];
    assert!(matches!(
        plan(SHAPE, &spent),
        Plan::Stop {
            scope: "request",
            ..
        }
    ));
}

#[test]
fn no_caps_leave_the_call_as_it_is() {
    assert!(matches!(
        plan(SHAPE, &[]),
        Plan::Go {
            max_output: 32_000,
            clamped: false,
            ..
        }
    ));
}
