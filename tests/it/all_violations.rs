//! Campaigns that keep fuzzing after a violation (`fail_fast = false`) on `Hive`, whose bugs
//! are independent: each distinct violation is reported once (by kind and place), shrunk on
//! its own, saved, replayed, and shared between workers.

use std::collections::BTreeSet;

use harvey::chain::Chain;
use harvey::prelude::*;
use harvey::{Campaign, Failure, Outcome, Violation};

use crate::support::{campaign_on, few_visits, repo};

/// A campaign on `Hive` with its invariant and division by zero counted.
fn hive<'a>() -> Campaign<'a> {
    campaign_on(repo())
        .contract("Hive")
        .invariant("few visits", few_visits)
        .panics("assert,division-by-zero".parse().unwrap())
        .seed(11)
        .runs(5_000)
}

/// `Hive`'s bugs as [`describe`] names them, sorted.
const HIVE_BUGS: [&str; 6] = [
    "event \"buzzed the queen\" @ contracts/bugs/Hive.sol:57",
    "invariant few visits",
    "panic 0x1 @ contracts/bugs/Hive.sol:20",
    "panic 0x1 @ contracts/bugs/Hive.sol:33",
    "panic 0x1 @ contracts/bugs/Hive.sol:49",
    "panic 0x12 @ contracts/bugs/Hive.sol:64",
];

/// A failure as `what @ where`.
fn describe(failure: &Failure) -> String {
    match &failure.violation {
        Violation::Invariant { name, .. } => format!("invariant {name}"),
        Violation::Panic { code, place } => format!(
            "panic {:#x} @ {}",
            code.code(),
            place.line.as_deref().unwrap_or("?")
        ),
        Violation::AssertionFailed { message, place, .. } => {
            format!("event {message} @ {}", place.line.as_deref().unwrap_or("?"))
        }
        other => format!("{other}"),
    }
}

/// The failures as [`describe`] names them, sorted; panics on a bug reported twice.
fn found(outcome: &Outcome) -> Vec<String> {
    let names: Vec<String> = outcome.failures.iter().map(describe).collect();
    let distinct: BTreeSet<String> = names.iter().cloned().collect();
    assert_eq!(distinct.len(), names.len(), "reported twice: {names:?}");
    distinct.into_iter().collect()
}

/// The failure of `outcome` described as `bug`.
fn failure_of<'o>(outcome: &'o Outcome, bug: &str) -> &'o Failure {
    outcome
        .failures
        .iter()
        .find(|f| describe(f) == bug)
        .unwrap_or_else(|| panic!("{bug} not found"))
}

#[test]
fn every_distinct_violation_is_reported_once_each_shrunk_in_the_order_found() {
    let outcome = hive().fail_fast(false).run().unwrap();
    let summary = harvey::report::summary(&outcome);
    // The budget was spent: the campaign went on past its first violation.
    assert_eq!(outcome.stats.sequences, 5_000, "{summary}");
    // One failed assert reached from `left` and from `right` is one bug.
    assert_eq!(found(&outcome), HIVE_BUGS, "{summary}");
    let order: Vec<u64> = outcome
        .failures
        .iter()
        .map(|f| f.found_after_sequences)
        .collect();
    assert!(order.is_sorted(), "{order:?}");
    for failure in &outcome.failures {
        let shrink = failure.shrink.expect("each violation is shrunk on its own");
        assert_eq!(shrink.to, failure.calls.len());
        assert!(!shrink.exhausted, "{summary}");
    }
    let calls = |bug| -> Vec<String> {
        failure_of(&outcome, bug)
            .calls
            .iter()
            .map(|c| c.function_name().to_string())
            .collect()
    };
    assert_eq!(calls(HIVE_BUGS[3]), ["arm", "fire"]);
    assert_eq!(calls(HIVE_BUGS[1]), ["visit", "visit", "visit"]);
    for single in [HIVE_BUGS[0], HIVE_BUGS[2], HIVE_BUGS[4], HIVE_BUGS[5]] {
        assert_eq!(calls(single).len(), 1, "{single}");
    }
    assert!(
        summary.contains("  violations: 6 distinct, in the order found\n    1. after "),
        "{summary}"
    );
    let report = harvey::report::failures_report(&outcome.failures, Some("hive"));
    assert!(report.starts_with("6 distinct violations, in the order found:\n\n[1/6] "));
    assert_eq!(report.matches("Call sequence (").count(), 6, "{report}");
}

#[test]
fn failing_fast_reports_the_first_violation_and_stops() {
    let outcome = hive().run().unwrap();
    assert_eq!(outcome.failures.len(), 1, "{:?}", found(&outcome));
    assert!(
        outcome.stats.sequences < 1_000,
        "{}",
        outcome.stats.sequences
    );
}

#[test]
fn saved_violations_all_replay_and_fuzzing_goes_on_for_new_ones() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hive.json");
    let first = hive()
        .fail_fast(false)
        .regression_file(&file, "hive")
        .run()
        .unwrap();
    assert_eq!(found(&first), HIVE_BUGS);
    let saved = std::fs::read_to_string(&file).unwrap();
    assert_eq!(saved.matches("\"violation\"").count(), 6, "{saved}");

    // Every saved failure replays, none is reported twice, and fuzzing still runs.
    let again = hive()
        .seed(12)
        .fail_fast(false)
        .regression_file(&file, "hive")
        .run()
        .unwrap();
    assert_eq!(found(&again), HIVE_BUGS);
    assert!(again.failures.iter().all(|f| f.from_regression));
    assert_eq!(again.stats.replayed, 6);
    assert!(again.stats.sequences > 1_000, "{}", again.stats.sequences);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), saved);

    // Failing fast, the first saved failure that still fails ends the campaign.
    let fast = hive().regression_file(&file, "hive").run().unwrap();
    assert_eq!(fast.failures.len(), 1);
    assert!(fast.failures[0].from_regression);
    assert_eq!((fast.stats.replayed, fast.stats.sequences), (1, 1));
}

#[test]
fn workers_share_what_they_found_and_report_each_violation_once() {
    let outcome = hive()
        .fail_fast(false)
        .workers(2)
        .runs(10_000)
        .run()
        .unwrap();
    assert_eq!(found(&outcome), HIVE_BUGS);
}

#[test]
fn a_panic_one_call_deep_is_placed_in_the_callee() {
    let outcome = campaign_on(repo())
        .setup(|chain| {
            let lock = chain.deploy("Lock", ())?;
            let gate = chain.deploy("Gate", (lock,))?;
            chain.fuzz(gate);
            Ok(())
        })
        .seed(5)
        .runs(5_000)
        .run()
        .unwrap();
    let failure = outcome.failure().expect("the lock's assert fails");
    crate::support::assert_panic_at(
        failure,
        harvey::chain::PanicCode::Assert,
        "contracts/bugs/Gate.sol:10",
        "Lock",
    );
    assert_eq!(failure.calls.len(), 1);
}

#[test]
fn a_post_setup_violation_is_reported_first_and_fuzzing_goes_on() {
    let called = |chain: &Chain| {
        chain
            .view::<U256>(chain.get("Hive"), "calls()", ())
            .is_ok_and(|calls| calls > U256::ZERO)
    };
    let outcome = hive()
        .invariant("called", called)
        .fail_fast(false)
        .run()
        .unwrap();
    let first = &outcome.failures[0];
    assert!(first.calls.is_empty() && first.shrink.is_none());
    assert!(matches!(&first.violation, Violation::Invariant { name, .. } if name == "called"));
    let mut expected: Vec<String> = HIVE_BUGS.iter().map(|b| b.to_string()).collect();
    expected.push("invariant called".into());
    expected.sort();
    assert_eq!(found(&outcome), expected);
    // Failing fast, the post-setup state's violation is all there is.
    let fast = hive().invariant("called", called).run().unwrap();
    assert_eq!(fast.failures.len(), 1);
    assert_eq!(fast.stats.sequences, 0);
}
