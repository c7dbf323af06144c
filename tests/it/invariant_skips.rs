//! Skipping unchanged invariants (the `skip_unchanged_invariants` setting) is exact: a
//! campaign finds the same violations after the same sequences, runs the same transactions
//! and covers the same edges whether it skips or not, on suites with handlers, pranks,
//! warps, `vm.assume`, created contracts, broadcasts, Echidna's delays and properties that
//! read the clock; and it does skip. Both kinds of skip are held to it: an invariant whose
//! reads the transaction did not write, and every invariant after a transaction that
//! repeats the last run's (after the same transactions) where they held.

use harvey::Outcome;

use crate::forge_suites::{run, suite};

/// Suite `name` run for `runs` sequences with skipping on and off; asserts both campaigns
/// are the same campaign, and returns the one that skipped.
fn same_campaign_either_way(name: &str, runs: u64) -> Outcome {
    let campaign = || suite(name).fail_fast(false).runs(runs).workers(1);
    let skipping = run(campaign());
    let checking = run(campaign().skip_unchanged_invariants(false));
    let failures = |outcome: &Outcome| -> Vec<String> {
        outcome
            .failures
            .iter()
            .map(|f| {
                format!(
                    "{} after {}: {:?}",
                    f.violation, f.found_after_sequences, f.calls
                )
            })
            .collect()
    };
    assert_eq!(failures(&skipping), failures(&checking), "{name}");
    let counts = |o: &Outcome| {
        (
            o.stats.sequences,
            o.stats.transactions,
            o.stats.edges,
            o.stats.corpus,
        )
    };
    assert_eq!(counts(&skipping), counts(&checking), "{name}");
    assert_eq!(checking.stats.time.invariants_skipped, 0, "{name}");
    let all = |o: &Outcome| o.stats.time.invariants_checked + o.stats.time.invariants_skipped;
    assert_eq!(all(&skipping), all(&checking), "{name}");
    skipping
}

#[test]
fn skipping_unchanged_invariants_changes_no_campaign() {
    let mut skipped = Vec::new();
    for name in [
        "LeakyVaultTest",
        "VaultTest",
        "TokenTest",
        "BankTest",
        "RegistryTest",
        "StaleOracleTest",
        "PointsTest",
        "DeployedTreasuryTest",
        "CappedPoolProperties",
        "LockProperties",
        "ClockProperties",
        "MintProperties",
    ] {
        let outcome = same_campaign_either_way(name, 2_000);
        let time = outcome.stats.time;
        eprintln!(
            "{name}: {} checked, {} skipped",
            time.invariants_checked, time.invariants_skipped
        );
        skipped.push((name, time.invariants_skipped));
    }
    assert!(skipped.iter().any(|(_, n)| *n > 0), "{skipped:?}");
}
