//! Reports on failing campaigns: numbers shrunk to their exact boundaries, shrinking on its
//! own budget and counted apart from the campaign's sequences, accounts named beside their
//! addresses, summaries naming their campaign, and "always reverts" only after enough calls.
//! The planted bugs are in `contracts/bugs/Thresholds.sol` (witnesses: `reports_witness`).

use harvey::Outcome;
use harvey::chain::{DEPLOYER, SENDERS};
use harvey::outcome::ShrinkStats;
use harvey::prelude::*;

use crate::reports_witness::initial;
use crate::support::{ETHER, campaign_on, chain, failure, founder_keeps_the_first_seat, repo};

fn campaign<'a>() -> Campaign<'a> {
    campaign_on(repo()).seed(1).runs(2_000)
}

fn float_within_initial(chain: &Chain) -> harvey::Result<()> {
    let float: U256 = chain.view(chain.get("Reserve"), "float()", ())?;
    harvey::ensure!(float <= initial(), "the float is {float}");
    Ok(())
}

fn shrink_stats(outcome: &Outcome) -> ShrinkStats {
    failure(outcome).shrink.expect("the failure was shrunk")
}

#[test]
fn a_huge_amount_shrinks_to_the_exact_boundary() {
    let outcome = campaign()
        .contract("Reserve")
        .invariant("float within initial", float_within_initial)
        .run()
        .unwrap();
    let failure = failure(&outcome);
    assert_eq!(failure.calls.len(), 1, "{failure:?}");
    let call = &failure.calls[0];
    assert_eq!(call.signature, "release(uint256)");
    assert_eq!(call.args, [(initial() + U256::ONE).into()]);
    assert_eq!(call.sender, SENDERS[0]);
    assert!(!shrink_stats(&outcome).exhausted);
}

#[test]
fn ether_values_shrink_to_the_boundary_and_unused_numbers_to_zero() {
    let outcome = campaign().contract("TipJar").run().unwrap();
    let failure = failure(&outcome);
    assert_eq!(failure.calls.len(), 1, "{failure:?}");
    let call = &failure.calls[0];
    assert_eq!(call.value, U256::from(ETHER) + U256::ONE);
    assert_eq!(call.args, [U256::ZERO.into()]);
}

#[test]
fn shrink_runs_are_counted_apart_from_the_campaigns_sequences() {
    let outcome = campaign()
        .contract("Reserve")
        .invariant("float within initial", float_within_initial)
        .run()
        .unwrap();
    let failure = failure(&outcome);
    let shrink = shrink_stats(&outcome);
    // One worker stops at its first violation: every sequence it ran led up to it.
    assert!(
        outcome.stats.sequences <= failure.found_after_sequences + 1,
        "{} sequences, found after {}",
        outcome.stats.sequences,
        failure.found_after_sequences
    );
    // Searching from a random 256-bit amount down to 1000 ether + 1 takes over a hundred
    // runs (powers of two up to 2^70, then bisection).
    assert!(shrink.runs >= 100, "{shrink:?}");
    assert_eq!(shrink.to, 1);
    // A tenth of the campaign's 2,000 runs is below the floor of 1,000.
    assert_eq!(shrink.budget_runs, 1_000);
    assert!(shrink.runs <= shrink.budget_runs);
    let summary = harvey::report::summary(&outcome);
    assert!(
        summary.contains(&format!("  shrinking: {} → 1 call in ", shrink.from)),
        "{summary}"
    );
}

#[test]
fn reports_name_accounts_beside_their_addresses() {
    let outcome = campaign()
        .name("reports::named")
        .setup(|chain| {
            let reserve = chain.deploy("Reserve", ())?;
            chain.fuzz(reserve);
            chain.label(SENDERS[0], "alice");
            Ok(())
        })
        .invariant("float within initial", float_within_initial)
        .run()
        .unwrap();
    let failure = failure(&outcome);
    let report = harvey::report::failure_report(failure, None);
    assert!(
        report.contains(&format!(
            "  #1 alice@0x10000 Reserve.release(amount: {}) value: 0\n",
            initial() + U256::ONE
        )),
        "{report}"
    );
    let reserve = failure.calls[0].address;
    let short = harvey::report::short_address(reserve);
    assert!(
        report.contains(&format!(
            "Accounts:\n  alice    {}\n  Reserve  {reserve}\n",
            SENDERS[0]
        )),
        "{report}"
    );
    let summary = harvey::report::summary(&outcome);
    assert!(summary.starts_with("harvey reports::named: "), "{summary}");
    assert!(
        summary.contains(&format!(
            "  fuzzed: Reserve@{short}; senders: alice@0x10000, 0x20000, 0x30000\n"
        )),
        "{summary}"
    );
}

#[test]
fn the_chain_names_deployed_contracts_the_deployer_and_labelled_accounts() {
    let mut chain = chain();
    let first = chain.deploy("Reserve", ()).unwrap();
    let second = chain.deploy("Reserve", ()).unwrap();
    assert_eq!(chain.label_of(first), Some("Reserve"));
    assert_eq!(chain.label_of(DEPLOYER), Some("deployer"));
    assert_eq!(chain.label_of(SENDERS[0]), None);
    chain.label(second, "spare");
    chain.label(SENDERS[1], "bob");
    let labels = chain.labels();
    assert_eq!(labels.get(first), Some("Reserve"));
    assert_eq!(labels.get(second), Some("spare"));
    assert_eq!(labels.get(SENDERS[1]), Some("bob"));
    assert_eq!(labels.get(DEPLOYER), Some("deployer"));
    assert_eq!(labels.iter().count(), 4);
}

#[test]
fn always_reverts_is_flagged_only_after_enough_calls() {
    // No invariant and no detector (the overflow detector would report the wrapping
    // float): it goes unnoticed and the campaign spends its budget, calling `close()`
    // (owner only) often enough for its reverts to mean something.
    let passing = campaign()
        .contract("Reserve")
        .runs(1_000)
        .detectors(DetectorSet::none())
        .run()
        .unwrap();
    assert!(passing.passed());
    let close = |outcome: &Outcome| {
        outcome
            .stats
            .functions
            .iter()
            .find(|f| f.signature == "close()")
            .cloned()
            .expect("close() is fuzzed")
    };
    let closed = close(&passing);
    assert!(
        closed.calls >= harvey::report::ALWAYS_REVERTS_AFTER,
        "{closed:?}"
    );
    assert_eq!(closed.reverts, closed.calls);
    let summary = harvey::report::summary(&passing);
    let row = summary
        .lines()
        .find(|l| l.contains("Reserve.close()"))
        .unwrap_or_else(|| panic!("{summary}"));
    assert!(row.contains("always reverts"), "{summary}");
    // With the invariant the campaign stops at its first violation, after a few calls.
    let failing = campaign()
        .contract("Reserve")
        .invariant("float within initial", float_within_initial)
        .run()
        .unwrap();
    assert!(close(&failing).calls < harvey::report::ALWAYS_REVERTS_AFTER);
    assert!(!harvey::report::summary(&failing).contains("always reverts"));
}

#[test]
fn a_time_warp_shrinks_to_its_boundary_too() {
    let outcome = campaign().contract("Timelock").run().unwrap();
    let failure = failure(&outcome);
    let calls: Vec<String> = failure
        .calls
        .iter()
        .map(|call| harvey::report::render_call(call, &failure.labels))
        .collect();
    assert_eq!(
        calls,
        [
            "0x10000 Timelock.lock(amount: 1001) value: 0",
            "0x10000 Timelock.release() value: 0 warp: +1d 1s",
        ],
        "{}",
        harvey::report::failure_report(failure, None)
    );
}

#[test]
fn senders_are_renamed_to_the_first_ones_throughout() {
    // Seats breaks when a second sender takes a seat and promotes itself: whichever sender
    // that is, the shrunk sequence shows the first two.
    let outcome = campaign()
        .contract("Seats")
        .invariant("founder keeps the first seat", |chain: &Chain| {
            founder_keeps_the_first_seat(chain).unwrap()
        })
        .run()
        .unwrap();
    let failure = failure(&outcome);
    let senders: Vec<Address> = failure.calls.iter().map(|c| c.sender).collect();
    assert_eq!(senders, [SENDERS[0], SENDERS[1], SENDERS[1]], "{failure:?}");
}

/// A slow invariant shows in the summary: the checks after each transaction take most of
/// the workers' time, and the summary says they bound the speed. (The invariant sleeps a
/// millisecond; a debug-build call of `Counter` takes a small fraction of that.)
#[test]
fn a_slow_invariant_shows_where_the_time_went() {
    let outcome = campaign_on(repo())
        .contract("Counter")
        .seed(1)
        .runs(300)
        .invariant("slow", |_chain: &Chain| {
            std::thread::sleep(std::time::Duration::from_millis(1));
            true
        })
        .run()
        .unwrap();
    let time = outcome.stats.time;
    assert!(time.checks > time.transactions * 2, "{time:?}");
    let summary = harvey::report::summary(&outcome);
    assert!(
        summary.contains("checking invariants and oracles, ")
            && summary.contains("the checks bound the speed"),
        "{summary}"
    );
}
