//! forge's stateless fuzz tests run as forge runs them (`Campaign::forge_suite(..)
//! .fuzz_test(..)`): the fuzz tests of `tests/fixtures/forge-suites/test/Stateless*.t.sol`,
//! whose `EXPECTED.md` section says what forge 1.7.1 reports on each. Witnesses for the
//! planted bugs are in `forge_fuzz_witness.rs`.

use harvey::{Campaign, Violation};

use crate::forge_suites::{run, suite};
use crate::support::{only_failure, refused};

/// A campaign on fuzz test `function` of test contract `contract`, seed 1.
fn fuzz_test<'a>(contract: &str, function: &str) -> Campaign<'a> {
    suite(contract).fuzz_test(function).fail_on_revert(true)
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

/// Every fuzz test that holds passes: `vm.assume` rejections, `bound`, an expected revert,
/// pure tests, and every case from a fresh copy of setUp's state (forge 1.7.1 passes all).
#[test]
fn fuzz_tests_that_hold_pass_as_in_forge() {
    for function in [
        "testFuzz_assumeKeepsEven",
        "testFuzz_boundKeepsRange",
        "testFuzz_capRevertsAbove",
        "testFuzz_additionCommutes",
        "testFuzz_everyCaseStartsFresh",
    ] {
        let outcome = run(fuzz_test("StatelessSoundTest", function).calls(300));
        assert!(
            outcome.passed(),
            "{function}: {}",
            harvey::report::failures_report(&outcome.failures, None)
        );
        assert!(
            outcome.stats.transactions >= 300,
            "{function}: {:?}",
            outcome.stats
        );
        let called: Vec<&str> = (outcome.stats.functions.iter())
            .filter(|f| f.calls > 0)
            .map(|f| f.signature.as_str())
            .collect();
        assert_eq!(called.len(), 1, "{function}: {called:?}");
        assert!(called[0].starts_with(function), "{function}: {called:?}");
    }
    // Half the inputs of the even test are rejected, and rejected calls are no cases.
    let outcome = run(fuzz_test("StatelessSoundTest", "testFuzz_assumeKeepsEven").calls(300));
    assert!(outcome.stats.rejected > 0, "{:?}", outcome.stats);
    // Random walks, if set, leave a case what it is: one call from setUp's state.
    let fresh = fuzz_test("StatelessSoundTest", "testFuzz_everyCaseStartsFresh").walks(50);
    let outcome = run(fresh.calls(300));
    assert!(
        outcome.passed(),
        "{}",
        harvey::report::failures_report(&outcome.failures, None)
    );
    assert_eq!(outcome.stats.sequencing.walks, 0, "{:?}", outcome.stats);
}

/// forge's failure flag set without a revert (ds-test's `fail()`) fails a case, as forge
/// reports `[FAIL]` with no reason.
#[test]
fn a_set_failure_flag_fails_the_case() {
    let outcome = run(fuzz_test("StatelessEdgesTest", "testFuzz_flagsLargeInputs").calls(5_000));
    let failure = only_failure(&outcome);
    let Violation::Invariant { name, message } = &failure.violation else {
        panic!("{:?}", failure.violation);
    };
    assert_eq!(name, "testFuzz_flagsLargeInputs");
    assert!(message.contains("failure flag"), "{message}");
    assert_eq!(failure.calls.len(), 1, "{:?}", failure.calls);
}

/// A `vm.assume` that rejects every input stops the test once `max_rejects` are rejected,
/// failing it as forge does ("`vm.assume` rejected too many inputs").
#[test]
fn rejecting_every_input_fails_after_max_rejects() {
    let outcome = run(fuzz_test("StatelessEdgesTest", "testFuzz_acceptsNothing")
        .calls(256)
        .max_rejects(500));
    assert!(!outcome.passed());
    assert_eq!(outcome.stats.rejected_too_many, Some(500));
    assert_eq!(outcome.stats.transactions, 0, "{:?}", outcome.stats);
    let why = outcome.untested.as_deref().unwrap_or_default();
    assert!(
        why.contains("rejected too many inputs (500 allowed"),
        "{why}"
    );
}

/// What is not a fuzz test is refused with the contract's fuzz tests listed; a `testFail*`
/// one with forge 1.7.1's own message.
#[test]
fn only_fuzz_tests_run_as_fuzz_tests() {
    let error = |contract: &str, function: &str| refused(fuzz_test(contract, function).calls(10));
    let unit = error("StatelessSoundTest", "test_capAllowsTheCap");
    assert!(
        unit.contains("not one of its fuzz tests")
            && unit.contains("testFuzz_additionCommutes(uint128,uint128)"),
        "{unit}"
    );
    let old = error("StatelessTestFailTest", "testFail_oldStyle");
    assert!(old.contains("`testFail*` has been removed"), "{old}");
    let orphan =
        refused(Campaign::new(crate::forge_suites_witness::fixture()).fuzz_test("testFuzz_x"));
    assert!(orphan.contains("Campaign::forge_suite"), "{orphan}");
}
