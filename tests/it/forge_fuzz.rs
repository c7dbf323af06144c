//! forge's stateless fuzz tests run as forge runs them (`Campaign::forge_suite(..)
//! .fuzz_test(..)`): the fuzz tests of `tests/fixtures/forge-suites/test/Stateless*.t.sol`,
//! whose `EXPECTED.md` section says what forge 1.7.1 reports on each. Witnesses for the
//! planted bugs are in `forge_fuzz_witness.rs`.

use harvey::{Campaign, Outcome, Violation};

use crate::forge_suites::{run, suite};

/// A campaign on fuzz test `function` of test contract `contract`, seed 1.
fn fuzz_test<'a>(contract: &str, function: &str) -> Campaign<'a> {
    suite(contract).fuzz_test(function).fail_on_revert(true)
}

/// The one failure of `outcome`, with the report when there is not exactly one.
fn only_failure(outcome: &Outcome) -> &harvey::Failure {
    assert_eq!(
        outcome.failures.len(),
        1,
        "{}",
        harvey::report::failures_report(&outcome.failures, None)
    );
    &outcome.failures[0]
}

#[test]
fn each_planted_stateless_bug_is_found_by_its_fuzz_test() {
    for function in [
        "testFuzz_positionsRoundTrip",
        "testFuzz_routesStayInRange",
        "testFuzz_interestAccrues",
        "testFuzz_trancheTotal",
    ] {
        let outcome = run(fuzz_test("StatelessTest", function).calls(50_000));
        let failure = only_failure(&outcome);
        eprintln!(
            "{function}: after {} sequences: {}",
            failure.found_after_sequences,
            harvey::report::failure_report(failure, None)
        );
        let Violation::Reverted { reason, .. } = &failure.violation else {
            panic!("{function}: {:?}", failure.violation);
        };
        assert!(reason.contains("assertion failed"), "{function}: {reason}");
        assert_eq!(failure.calls.len(), 1, "{function}: {:?}", failure.calls);
        assert!(
            failure.calls[0].signature.starts_with(function),
            "{function}: {:?}",
            failure.calls
        );
    }
}
