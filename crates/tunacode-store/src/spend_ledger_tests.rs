//! The day's spend: holds, settlement, a new day, holds of dead processes, a broken file, and
//! concurrent holders that never take more than the cap together.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

fn usd(usd: f64) -> Spend {
    Spend { usd, tokens: 0 }
}

/// Holds `amount` when it fits under `cap` with what is taken.
fn hold_within(ledger: &SpendLedger, day: &str, cap: f64, amount: f64) -> Option<String> {
    ledger
        .hold(day, |taken| {
            (taken.usd + amount <= cap).then_some((usd(amount), ()))
        })
        .unwrap()
        .map(|(id, ())| id)
}

#[test]
fn holds_count_until_settled_at_the_real_spend_and_a_new_day_starts_empty() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = SpendLedger::new(dir.path());
    let a = hold_within(&ledger, "2026-11-26", 1.0, 0.6).expect("fits");
    assert!(
        hold_within(&ledger, "2026-11-26", 1.0, 0.6).is_none(),
        "0.6 is held"
    );
    ledger.settle("2026-11-26", &a, usd(0.1)).unwrap();
    assert_eq!(ledger.taken("2026-11-26").unwrap(), usd(0.1));
    assert!(hold_within(&ledger, "2026-11-26", 1.0, 0.6).is_some());
    assert_eq!(ledger.taken("2026-11-27").unwrap(), Spend::default());
    let mode = std::fs::metadata(dir.path().join("spend.json")).unwrap();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o777,
        0o600
    );
}

#[test]
fn a_hold_of_a_process_that_is_gone_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let gone = Day {
        day: "2026-11-26".into(),
        settled: usd(0.2),
        holds: vec![Hold {
            id: "x".into(),
            pid: u32::MAX - 1,
            since: now_secs(),
            amount: usd(5.0),
        }],
    };
    std::fs::write(
        dir.path().join("spend.json"),
        serde_json::to_string(&gone).unwrap(),
    )
    .unwrap();
    let ledger = SpendLedger::new(dir.path());
    assert_eq!(ledger.taken("2026-11-26").unwrap(), usd(0.2));
}

#[test]
fn a_broken_file_is_an_error_that_names_it_and_is_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("spend.json"), "{not json").unwrap();
    let ledger = SpendLedger::new(dir.path());
    let err = ledger.taken("2026-11-26").unwrap_err().to_string();
    assert!(err.contains("spend.json"), "{err}");
    assert!(hold_within_result(&ledger).is_err());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("spend.json")).unwrap(),
        "{not json"
    );
}

fn hold_within_result(ledger: &SpendLedger) -> Result<Option<(String, ())>, StoreError> {
    ledger.hold("2026-11-26", |_| Some((usd(0.1), ())))
}

#[test]
fn concurrent_holders_never_take_more_than_the_cap_together() {
    let dir = tempfile::tempdir().unwrap();
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let ledger = SpendLedger::new(dir.path());
            std::thread::spawn(move || {
                let mut held = 0;
                while let Some(id) = hold_within(&ledger, "2026-11-26", 1.0, 0.05) {
                    ledger.settle("2026-11-26", &id, usd(0.05)).unwrap();
                    held += 1;
                }
                held
            })
        })
        .collect();
    let total: u32 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    let taken = SpendLedger::new(dir.path()).taken("2026-11-26").unwrap();
    assert!(taken.usd <= 1.0 + 1e-9, "{taken:?}");
    assert_eq!(
        total,
        (taken.usd / 0.05).round() as u32,
        "no update was lost"
    );
    assert!(total >= 19, "the cap was used: {total}");
}

#[test]
fn a_call_settled_after_midnight_counts_in_the_new_day_without_resetting_it() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = SpendLedger::new(dir.path());
    let late = hold_within(&ledger, "2026-11-26", 10.0, 1.0).unwrap();
    // After midnight another process spends in the new day.
    let early = hold_within(&ledger, "2026-11-27", 10.0, 2.0).unwrap();
    ledger.settle("2026-11-27", &early, usd(2.0)).unwrap();
    ledger.settle("2026-11-26", &late, usd(0.5)).unwrap();
    assert_eq!(ledger.taken("2026-11-27").unwrap(), usd(2.5));
    // A process whose clock is still on the old day sees the new day, not an empty old one.
    assert_eq!(ledger.taken("2026-11-26").unwrap(), usd(2.5));
}

#[test]
fn negative_or_huge_amounts_in_the_file_are_refused_not_wrapped() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("spend.json");
    std::fs::write(
        &file,
        r#"{"day":"2026-11-26","settled":{"usd":-100.0,"tokens":0},"holds":[]}"#,
    )
    .unwrap();
    let ledger = SpendLedger::new(dir.path());
    assert!(
        ledger.taken("2026-11-26").is_err(),
        "a negative spend would raise the room"
    );
    std::fs::write(
        &file,
        r#"{"day":"2026-11-26","settled":{"usd":0.0,"tokens":18446744073709551615},"holds":[]}"#,
    )
    .unwrap();
    let taken = ledger.taken("2026-11-26").unwrap();
    assert_eq!(taken.tokens, u64::MAX);
    let more = ledger
        .hold("2026-11-26", |t| {
            Some((
                Spend {
                    usd: 0.0,
                    tokens: 10,
                },
                t,
            ))
        })
        .unwrap()
        .unwrap();
    assert_eq!(
        more.1.tokens,
        u64::MAX,
        "saturates, never wraps to a small number"
    );
}
