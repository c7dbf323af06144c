//! Targeted campaigns report, for every target line, whether and when fuzzing reached it
//! and by which calls; runs with fuzzed storage (aggressive runs) never count.

use harvey::TargetSpec;
use harvey::prelude::*;

use crate::support::{campaign_on, chain, repo};

fn campaign<'a>(targets: &str) -> Campaign<'a> {
    campaign_on(repo())
        .contract("Guarded")
        .seed(4)
        .runs(5_000)
        .targets(targets.parse::<TargetSpec>().unwrap())
}

#[test]
fn reached_and_unreached_targets_are_reported_with_the_reaching_calls() {
    let outcome = campaign("contracts/sequences/Guarded.sol:18,contracts/sequences/Guarded.sol:24")
        .run()
        .unwrap();
    assert!(outcome.passed());
    let targets = &outcome.stats.targets;
    assert_eq!(targets.len(), 2, "{targets:?}");
    let (decrement, assertion) = (&targets[0], &targets[1]);
    assert_eq!(
        (decrement.location.as_str(), decrement.contract.as_str()),
        ("contracts/sequences/Guarded.sol:18", "Guarded")
    );
    let reach = decrement
        .reached
        .as_ref()
        .expect("lower() after raise() decrements");
    let names: Vec<&str> = reach.calls.iter().map(|c| c.function_name()).collect();
    assert_eq!(names.last(), Some(&"lower"), "{names:?}");
    assert!(
        names.contains(&"raise"),
        "level must be raised first: {names:?}"
    );
    assert!(reach.after_sequences > 0);
    // Aggressive runs write 1000 into `level` and do reach the assertion; they must not
    // count, since no real sequence can.
    assert!(outcome.stats.sequencing.aggressive_runs > 0);
    assert_eq!(assertion.location, "contracts/sequences/Guarded.sol:24");
    assert!(assertion.reached.is_none(), "{:?}", assertion.reached);
    let summary = harvey::report::summary(&outcome);
    assert!(summary.contains("targets: 1 of 2 reached"), "{summary}");
    assert!(
        summary.contains("Guarded.sol:24 (Guarded)  NOT REACHED"),
        "{summary}"
    );
    // Not required: the unreached target does not fail the campaign.
    assert!(outcome.missed_targets().is_empty());
    let mut required = outcome;
    required.require_targets = true;
    assert!(!required.passed());
    assert_eq!(
        required.missed_targets(),
        ["contracts/sequences/Guarded.sol:24 (Guarded)"]
    );
}

#[test]
fn a_campaign_that_requires_its_targets_fails_when_one_is_never_reached() {
    let outcome = campaign("contracts/sequences/Guarded.sol:18,contracts/sequences/Guarded.sol:24")
        .runs(500)
        .require_targets(true)
        .run()
        .unwrap();
    assert!(outcome.failures.is_empty());
    assert!(!outcome.passed());
    assert_eq!(
        outcome.missed_targets(),
        ["contracts/sequences/Guarded.sol:24 (Guarded)"]
    );
}

#[test]
fn a_line_without_code_is_a_warning_and_the_campaign_runs_untargeted() {
    // Line 9 is blank.
    let outcome = campaign("contracts/sequences/Guarded.sol:9").run().unwrap();
    assert!(outcome.stats.targets.is_empty());
    assert!(
        outcome.warnings.iter().any(|w| w.contains("Guarded.sol:9")),
        "{:?}",
        outcome.warnings
    );
}

#[test]
fn targets_in_contracts_the_campaign_does_not_deploy_are_named() {
    let outcome = campaign("contracts/sequences/Counter.sol:9").run().unwrap();
    assert!(outcome.stats.targets.is_empty());
    assert!(
        outcome
            .warnings
            .iter()
            .any(|w| w.contains("does not deploy") && w.contains("Counter.sol:9 (Counter)")),
        "{:?}",
        outcome.warnings
    );
}

#[test]
fn the_lookahead_analysis_steers_towards_a_hard_assertion() {
    // Loops.sol after ICSE'20's running example: two input-dependent loops on one side,
    // `a * a == b + 7` behind a mode set by an earlier transaction on the other.
    let outcome = campaign_on(repo())
        .contract("Loops")
        .seed(1)
        .runs(50_000)
        .targets(
            "contracts/lookahead/Loops.sol:27"
                .parse::<TargetSpec>()
                .unwrap(),
        )
        .run()
        .unwrap();
    let failure = outcome.failure().unwrap_or_else(|| {
        panic!(
            "the assertion was not reached:\n{}",
            harvey::report::summary(&outcome)
        )
    });
    assert!(
        failure.last_status.contains("Panic(0x01)"),
        "{}",
        failure.last_status
    );
    let target = &outcome.stats.targets[0];
    assert!(target.reached.is_some(), "{target:?}");
    let lookahead = &outcome.stats.lookahead;
    assert!(
        lookahead.analyses > 0 && lookahead.bounded > 0,
        "{lookahead:?}"
    );
    assert!(lookahead.ids > 1, "{lookahead:?}");
}

#[test]
fn every_steering_configuration_reaches_an_easy_target() {
    use harvey::Steering;
    for steering in [
        Steering::Off,
        Steering::Lookahead,
        Steering::NoAnalysis,
        Steering::StandardSchedule,
    ] {
        let outcome = campaign("contracts/sequences/Guarded.sol:18")
            .runs(2_000)
            .lookahead(steering)
            .run()
            .unwrap();
        let target = &outcome.stats.targets[0];
        assert!(target.reached.is_some(), "{steering}: {target:?}");
        let lookahead = &outcome.stats.lookahead;
        assert_eq!(lookahead.steering, steering);
        match steering {
            Steering::Off => assert_eq!(lookahead.analyses, 0),
            // Without the analysis no prefix is ever bounded.
            Steering::NoAnalysis => {
                assert!(
                    lookahead.analyses > 0 && lookahead.bounded == 0,
                    "{lookahead:?}"
                )
            }
            _ => assert!(lookahead.bounded > 0, "{steering}: {lookahead:?}"),
        }
        let summary = harvey::report::summary(&outcome);
        assert!(
            summary.contains(&format!("steering: {steering}")),
            "{summary}"
        );
    }
}

#[test]
fn a_campaign_can_stop_once_every_target_is_reached() {
    let outcome = campaign("contracts/sequences/Guarded.sol:18")
        .runs(1_000_000)
        .stop_when_targets_reached(true)
        .run()
        .unwrap();
    let reach = outcome.stats.targets[0].reached.as_ref().expect("reached");
    assert!(outcome.passed());
    assert!(
        outcome.stats.sequences <= reach.after_sequences + 1,
        "ran {} sequences, reached after {}",
        outcome.stats.sequences,
        reach.after_sequences
    );
}

/// `contracts/targets/Escrow.sol` (the benchmark's contract with lines of every difficulty)
/// has no dead code on its deepest path: direct calls reach the end of `appeal`.
#[test]
fn the_escrow_appeal_is_reachable_by_direct_calls() {
    use alloy_dyn_abi::DynSolValue;
    let mut chain = chain();
    let escrow = chain.deploy("Escrow", ()).unwrap();
    let n = |v: u64| DynSolValue::Uint(U256::from(v), 256);
    let steps: [(&str, Vec<DynSolValue>); 9] = [
        ("addMilestone(uint256)", vec![n(1)]),
        ("addMilestone(uint256)", vec![n(2)]),
        ("fund(uint256)", vec![n(3)]),
        // 3 % 7 == 3 sets the penalty to 3 / 7 == 0, so the bond is sqrt(144).
        ("dispute(uint256)", vec![n(3)]),
        ("vote(bool,uint256)", vec![DynSolValue::Bool(false), n(10)]),
        ("vote(bool,uint256)", vec![DynSolValue::Bool(false), n(10)]),
        ("vote(bool,uint256)", vec![DynSolValue::Bool(false), n(10)]),
        ("appeal(uint256)", vec![n(11)]),
        ("appeal(uint256)", vec![n(12)]),
    ];
    for (i, (signature, args)) in steps.iter().enumerate() {
        let outcome = chain.try_call(escrow, signature, args).unwrap();
        // The wrong bond (11) must be refused; everything else succeeds.
        assert_eq!(
            outcome.is_success(),
            i != 7,
            "{signature}: {}",
            outcome.status
        );
    }
    let appealed: bool = chain.view(escrow, "appealed()", ()).unwrap();
    assert!(!appealed, "the appeal went through");
}
