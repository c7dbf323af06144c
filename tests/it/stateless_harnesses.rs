//! Echidna/Medusa assertion-mode harnesses of stateless functions (issue 41): the harnesses
//! of `tests/fixtures/forge-suites/test/configs/stateless` (witnesses in
//! `stateless_harnesses_witness.rs`) run with their `echidna.yaml`, in assertion mode with
//! Echidna's defaults (its senders and delays). Their functions are `pure` or `view`, which
//! Echidna calls by default, and keep nothing, so the campaign runs every call as a case of
//! its own, as a fuzz test's.

use harvey::Outcome;

use crate::forge_suites::{run, suite};

/// The harnesses with a planted bug, and the function that asserts.
const HARNESSES: [(&str, &str); 4] = [
    ("PositionsAssertions", "test_positionsRoundTrip"),
    ("RouterAssertions", "test_routesStayInRange"),
    ("InterestAssertions", "test_interestAccrues"),
    ("TrancheAssertions", "test_trancheTotal"),
];

/// The one failure of `outcome`: a failed `assert` in `function` of `harness`, by one call.
fn the_assert_of(outcome: &Outcome, harness: &str, function: &str) {
    assert_eq!(outcome.failures.len(), 1, "{harness}: {outcome}");
    let failure = &outcome.failures[0];
    let reported = failure.violation.to_string();
    assert!(reported.contains("Panic(0x01)"), "{harness}: {reported}");
    assert_eq!(failure.calls.len(), 1, "{harness}: {:?}", failure.calls);
    let call = &failure.calls[0];
    assert_eq!(
        (call.contract.as_str(), call.function_name()),
        (harness, function)
    );
}

#[test]
fn each_stateless_harness_runs_one_call_per_case_and_breaks_its_assert() {
    // Measured at seeds 1-5 (debug build, cases until found): positions 22, 3, 5, 27, 5;
    // routes 195, 472, 34, 52, 602; interest 63, 92, 45, 63, 22; tranches 239, 128, 75,
    // 144, 113. Seed 1 runs with 10,000 calls, 16 times the slowest seed's count.
    for (harness, function) in HARNESSES {
        let outcome = run(suite(harness).calls(10_000));
        assert!(outcome.stats.sequencing.independent_calls, "{harness}");
        let lengths = &outcome.stats.sequencing.runs_by_length;
        assert!(
            lengths.iter().skip(2).all(|&runs| runs == 0),
            "{harness}: {lengths:?}"
        );
        the_assert_of(&outcome, harness, function);
    }
}

#[test]
fn calls_that_leave_state_or_see_the_clock_move_make_sequences() {
    // GaugeAssertions writes storage: its bug takes three calls.
    let outcome = run(suite("GaugeAssertions").runs(5_000));
    assert!(!outcome.stats.sequencing.independent_calls);
    assert!(outcome.failures[0].calls.len() >= 3, "{outcome}");
    // The clock harness reads `block.timestamp`, which Echidna's delays move between calls.
    let outcome = run(suite("ClockAssertions").runs(500));
    assert!(!outcome.stats.sequencing.independent_calls);
    assert!(outcome.passed(), "{outcome}");
    // With the block held still, its calls are independent.
    let still = suite("ClockAssertions")
        .suite_config("test/configs/stateless/still.yaml")
        .runs(500);
    let outcome = run(still);
    assert!(outcome.stats.sequencing.independent_calls);
    assert!(outcome.passed(), "{outcome}");
}

#[test]
fn excluding_view_and_pure_functions_leaves_a_pure_harness_nothing_to_call() {
    let err = suite("PositionsAssertions")
        .suite_config("test/configs/stateless/exclude-view-pure.yaml")
        .runs(100)
        .run()
        .unwrap_err()
        .to_string();
    assert!(err.contains("exclude-view-pure.yaml"), "{err}");
    assert!(err.contains("nothing to fuzz"), "{err}");
}
