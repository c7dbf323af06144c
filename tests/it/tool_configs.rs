//! Echidna and Medusa harnesses run with their config files (issue 40): the harnesses of
//! `tests/fixtures/forge-suites/test/configs`, whose planted bugs only their configs reach
//! (witnesses in `tool_configs_witness.rs`), are listed with their configs and broken.

use std::path::PathBuf;

use harvey::discovery::SuiteKind;
use harvey::prelude::address;

use crate::forge_suites::{broken, run, suite};
use crate::forge_suites_witness::{artifacts, fixture};

// Campaigns on the fixture's harnesses use `forge_suites::suite` (compiled in the fixture's
// environment first, seed 1). Measured at seeds 1–5, the bugs fall within 9–55 sequences
// (airdrop), 22–597 (pool) and 39–309 (gauge), against budgets of 2,000, 5,000 and 5,000
// (seed 1: 32, 597 and 309).

#[test]
fn harnesses_are_listed_with_the_configs_that_name_them() {
    artifacts();
    let suites = harvey::discovery::suites(&fixture()).unwrap();
    let listed = |contract: &str| {
        suites
            .iter()
            .filter(|s| s.contract == contract)
            .map(|s| (s.kind, s.config.clone(), s.invariants.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        listed("AirdropEchidna"),
        [(
            SuiteKind::Properties,
            Some(PathBuf::from("test/configs/AirdropEchidna.yaml")),
            vec![
                "invariant_prizeKept".to_string(),
                "invariant_supplyIsFixed".to_string()
            ]
        )]
    );
    assert_eq!(
        listed("PoolProperties"),
        [(
            SuiteKind::Properties,
            Some(PathBuf::from("test/configs/medusa.json")),
            vec!["property_totalIsTheSumOfBalances".to_string()]
        )]
    );
    // In assertion mode, with nothing but its config to say it is a harness.
    assert_eq!(
        listed("GaugeAssertions"),
        [(
            SuiteKind::Properties,
            Some(PathBuf::from("test/configs/assertion/echidna.yaml")),
            Vec::new()
        )]
    );
    // The system under test next to a harness is not one.
    assert!(listed("CreditPool").is_empty());
}

/// The yaml's senders (the attacker), balance (10 ether to the payable constructor) and
/// prefix (`invariant_`) are what break it.
#[test]
fn an_echidna_yaml_gives_the_senders_balance_and_prefix() {
    let outcome = run(suite("AirdropEchidna").runs(2_000));
    assert_eq!(broken(&outcome), ["invariant_supplyIsFixed"]);
    let failure = &outcome.failures[0];
    assert!(
        failure
            .calls
            .iter()
            .all(|tx| tx.sender == address!("0x1337000000000000000000000000000000000000")),
        "{:?}",
        failure.calls
    );
}

/// Echidna mints `balanceContract` into the harness: the deployer keeps `balanceAddr` and
/// what the constructor pays back (`RefundEchidna` holds in every state, as in Echidna's own
/// `basic/balance.sol` test).
#[test]
fn echidna_mints_the_harness_balance_and_the_deployer_keeps_its_refund() {
    let outcome = run(suite("RefundEchidna").runs(200));
    assert!(
        outcome.passed(),
        "{}",
        harvey::report::failures_report(&outcome.failures, None)
    );
}

/// `testAllContracts` fuzzes the pool the harness deployed, whose own functions are all
/// properties.
#[test]
fn a_medusa_config_fuzzes_what_the_harness_deployed() {
    let outcome = run(suite("PoolProperties").runs(5_000));
    assert_eq!(broken(&outcome), ["property_totalIsTheSumOfBalances"]);
    // The harness, all properties, is not a fuzzed contract with nothing to call.
    assert!(
        !outcome
            .warnings
            .iter()
            .any(|w| w.contains("no state-changing function")),
        "{:?}",
        outcome.warnings
    );
}

#[test]
fn a_harness_only_its_config_names_runs_in_assertion_mode() {
    let outcome = run(suite("GaugeAssertions").runs(5_000));
    let found = broken(&outcome);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("Panic(0x01)"), "{found:?}");
}

/// A config named explicitly wins, and what goes wrong with it is an error naming it: a
/// constructor its balance does not satisfy, no test under its prefixes, a file that is
/// not there.
#[test]
fn a_named_config_wins_and_its_errors_name_it() {
    let error_with = |config: &str| {
        suite("AirdropEchidna")
            .suite_config(config)
            .runs(10)
            .run()
            .unwrap_err()
            .to_string()
    };
    let err = error_with("test/configs/assertion/echidna.yaml");
    assert!(err.contains("test/configs/assertion/echidna.yaml"), "{err}");
    assert!(err.contains("fund me with exactly 10 ether"), "{err}");
    let err = error_with("test/configs/medusa.json");
    assert!(err.contains("test/configs/medusa.json"), "{err}");
    assert!(err.contains("no test to run"), "{err}");
    assert!(err.contains("`property_*` with no parameters"), "{err}");
    let err = error_with("foundry.toml.yaml");
    assert!(err.contains("foundry.toml.yaml"), "{err}");
}

/// The guard `cargo harvey init` writes: a project whose suites have no test under `tests/`
/// fails, naming each with the attribute to add (its config too).
#[test]
fn suites_without_a_test_are_named_with_the_test_to_add() {
    artifacts();
    let err = harvey::every_suite_tested(&fixture())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("no #[harvey::forge_suite] test under"),
        "{err}"
    );
    assert!(
        err.contains(
            "`GaugeAssertions` (test/configs/assertion/GaugeAssertions.sol): add\n    #[harvey::forge_suite(\"GaugeAssertions\", config = \"test/configs/assertion/echidna.yaml\")]"
        ),
        "{err}"
    );
    assert!(err.contains("`LeakyVaultTest`"), "{err}");
}
