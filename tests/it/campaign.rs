//! Campaigns end to end against the planted bugs in `contracts/bugs/`: each bug found with a
//! fixed seed and shrunk to its minimal sequence, a correct contract passing, regression
//! files written and replayed, and determinism.

use harvey::chain::{Chain, PanicCode};
use harvey::prelude::*;
use harvey::{PanicSet, Violation};

use crate::support::{
    assert_panic_at, calls, campaign_on, failure, founder_keeps_the_first_seat, repo,
};

fn campaign<'a>() -> Campaign<'a> {
    campaign_on(repo()).seed(1).runs(50_000)
}

#[test]
fn finds_the_assert_behind_two_calls_and_shrinks_it() {
    let outcome = campaign().contract("TwoStep").run().unwrap();
    let failure = failure(&outcome);
    assert_panic_at(
        failure,
        PanicCode::Assert,
        "contracts/bugs/TwoStep.sol:24",
        "TwoStep",
    );
    assert_eq!(calls(failure), ["TwoStep.arm", "TwoStep.fire"]);
    assert_eq!(failure.calls[0].args, [U256::from(0xC0FFEE).into()]);
    assert!(
        failure.last_status.contains("Panic(0x01)"),
        "{}",
        failure.last_status
    );
}

#[test]
fn finds_the_sender_ordering_bug() {
    let outcome = campaign()
        .contract("Seats")
        .invariant("founder keeps the first seat", |chain: &Chain| {
            match founder_keeps_the_first_seat(chain) {
                Ok(true) => Ok(()),
                Ok(false) => Err("the first seat moved away from the founder".to_string()),
                Err(e) => Err(e.to_string()),
            }
        })
        .run()
        .unwrap();
    let failure = failure(&outcome);
    assert!(
        matches!(&failure.violation, Violation::Invariant { name, .. } if name == "founder keeps the first seat"),
        "{:?}",
        failure.violation
    );
    assert_eq!(
        calls(failure),
        ["Seats.take", "Seats.take", "Seats.promote"]
    );
    let senders: Vec<Address> = failure.calls.iter().map(|c| c.sender).collect();
    assert_ne!(senders[0], senders[1], "two different takers");
    assert_eq!(senders[1], senders[2], "the second taker promotes");
}

/// `Rewards` with checked-arithmetic Panics counted (they are not by default), and no
/// vulnerability detector: the overflow detector reports the wrap itself (line 23), one
/// transaction before the Panic these tests are about.
fn rewards_with_overflow_counted<'a>() -> Campaign<'a> {
    campaign()
        .contract("Rewards")
        .panics("assert,overflow".parse().unwrap())
        .detectors(DetectorSet::none())
}

#[test]
fn finds_the_overflow_after_an_unchecked_wrap() {
    let outcome = rewards_with_overflow_counted().run().unwrap();
    let failure = failure(&outcome);
    // Raised in solc's checked-addition helper; reported at the statement that called it.
    assert_panic_at(
        failure,
        PanicCode::ArithmeticOverflow,
        "contracts/bugs/Rewards.sol:13",
        "Rewards",
    );
    assert_eq!(
        calls(failure),
        ["Rewards.earn", "Rewards.spend", "Rewards.earn"]
    );
    assert_ne!(failure.calls[0].sender, failure.calls[1].sender);
}

#[test]
fn checked_arithmetic_reverts_are_not_violations_by_default() {
    // Forge's `fail_on_assert` and Medusa's default: the overflow that `Rewards` reverts with
    // is how 0.8 code rejects bad input; only a failed assert counts unless asked for.
    // (The overflow detector would report the wrap that leads to it: not a Panic.)
    let outcome = campaign()
        .contract("Rewards")
        .runs(5_000)
        .panics(PanicSet::default())
        .detectors(DetectorSet::none())
        .run()
        .unwrap();
    assert!(outcome.passed(), "{:?}", outcome.failures);
}

/// The bank's ether is exactly its total, and the senders hold no more than that (transfers
/// may also credit other addresses).
fn bank_invariant(chain: &Chain) -> Result<()> {
    let bank = chain.get("Bank");
    let total: U256 = chain.view(bank, "total()", ())?;
    let mut held = U256::ZERO;
    for sender in chain.senders() {
        held += chain.view::<U256>(bank, "balanceOf(address)", (*sender,))?;
    }
    harvey::ensure!(
        held <= total && chain.balance(bank) == total,
        "senders hold {held}, total {total}, ether {}",
        chain.balance(bank)
    );
    Ok(())
}

#[test]
fn a_correct_contract_passes() {
    let outcome = campaign()
        .runs(3_000)
        .contract("Bank")
        .invariant("accounts add up", bank_invariant)
        .run()
        .unwrap();
    assert!(outcome.passed(), "{:?}", outcome.failures);
    assert_eq!(outcome.stats.sequences, 3_000);
    let functions: Vec<&str> = outcome
        .stats
        .functions
        .iter()
        .map(|f| f.signature.as_str())
        .collect();
    assert_eq!(
        functions,
        [
            "deposit()",
            "transfer(address,uint256)",
            "withdraw(uint256)"
        ]
    );
    assert!(
        outcome
            .stats
            .functions
            .iter()
            .all(|f| f.calls > 100 && f.reverts < f.calls)
    );
    assert!(outcome.stats.edges > 10, "{}", outcome.stats.edges);
    outcome.assert_passed();
    let shown = outcome.to_string();
    assert!(shown.contains("3,000 sequences"), "{shown}");
    assert!(!shown.contains("violated"), "{shown}");
}

/// An `Outcome` shows its violations' reports, and `assert_passed` fails with them.
#[test]
fn an_outcome_shows_and_asserts_its_violations() {
    let outcome = campaign()
        .contract("Seats")
        .invariant("founder keeps the first seat", |chain: &Chain| {
            founder_keeps_the_first_seat(chain)
        })
        .run()
        .unwrap();
    let shown = outcome.to_string();
    assert!(shown.contains("founder keeps the first seat"), "{shown}");
    assert!(shown.contains("Seats.take"), "{shown}");
    let report = std::panic::catch_unwind(|| outcome.assert_passed()).unwrap_err();
    let report = report.downcast_ref::<String>().expect("a formatted panic");
    assert!(report.contains("founder keeps the first seat"), "{report}");
}

/// A campaign that writes a file campaigns share (SARIF here) must be named, so that its
/// part of the file does not replace another's; nothing is compiled or written first.
#[test]
fn a_campaign_writing_a_shared_file_needs_a_name() {
    let dir = tempfile::tempdir().unwrap();
    let sarif = dir.path().join("harvey.sarif");
    let err = campaign().contract("Bank").sarif(&sarif).run().unwrap_err();
    assert!(matches!(err, harvey::Error::Config(_)), "{err:?}");
    assert!(err.to_string().contains("Campaign::name"), "{err}");
    assert!(!sarif.exists());
}

/// `Config::default()` is the same every time (no seed is drawn until a campaign starts);
/// `Config::from_env` reads the `HARVEY_*` variables as the macro does. (The variables'
/// effect itself is tested on `Config::resolve`, without touching this process's
/// environment.)
#[test]
fn the_default_config_is_deterministic() {
    assert_eq!(Config::default(), Config::default());
    assert_eq!(Config::default().seed, None);
    let seed_var = std::env::var("HARVEY_SEED")
        .ok()
        .filter(|v| !v.trim().is_empty());
    if let (Ok(config), None) = (Config::from_env(), seed_var) {
        assert_eq!(config.seed, None);
    }
}

#[test]
fn same_seed_same_campaign() {
    let run = || {
        campaign()
            .runs(2_000)
            .contract("Bank")
            .invariant("accounts add up", bank_invariant)
            .run()
            .unwrap()
    };
    let (a, b) = (run(), run());
    assert_eq!(a.stats.corpus, b.stats.corpus);
    assert_eq!(a.stats.edges, b.stats.edges);
    assert_eq!(a.stats.transactions, b.stats.transactions);
    assert_eq!(a.stats.functions, b.stats.functions);

    let find = || rewards_with_overflow_counted().run().unwrap();
    let (a, b) = (find(), find());
    let (fa, fb) = (failure(&a), failure(&b));
    assert_eq!(fa.calls, fb.calls);
    assert_eq!(fa.found_after_sequences, fb.found_after_sequences);
    assert_eq!(fa.found_len, fb.found_len);
}

#[test]
fn failures_are_saved_and_replayed_first() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("harvey-regressions").join("two_step.json");
    let outcome = campaign()
        .contract("TwoStep")
        .regression_file(&file, "two_step")
        .run()
        .unwrap();
    let first = failure(&outcome);
    assert!(!first.from_regression);
    assert_eq!(first.regression_file.as_deref(), Some(file.as_path()));
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("\"function\": \"arm(uint256)\""), "{saved}");

    // Another seed with no budget at all still fails: from the file.
    let replayed = campaign()
        .seed(99)
        .runs(0)
        .contract("TwoStep")
        .regression_file(&file, "two_step")
        .run()
        .unwrap();
    let again = failure(&replayed);
    assert!(again.from_regression);
    assert_eq!(again.calls, first.calls);
    assert_eq!(replayed.stats.replayed, 1);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        saved,
        "a replay does not rewrite the file"
    );
    assert!(replayed.warnings.is_empty(), "{:?}", replayed.warnings);

    // Other detectors change what counts as a failure: the replay says so.
    let other = campaign()
        .runs(0)
        .contract("TwoStep")
        .detectors(DetectorSet::none())
        .regression_file(&file, "two_step")
        .run()
        .unwrap();
    assert!(
        other
            .warnings
            .iter()
            .any(|w| w.contains("other settings") && w.contains("detectors")),
        "{:?}",
        other.warnings
    );
}

#[test]
fn stale_and_corrupt_regression_files_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stale.json");
    std::fs::write(
        &file,
        r#"{"harvey_regressions": 1, "test": "t", "failures": [{"violation": "v", "seed": 1,
           "settings": "x", "calls": [{"sender": "0x0000000000000000000000000000000000010000",
           "contract": "TwoStep", "function": "explode(uint256)", "args": "0x", "decoded": "",
           "value": "0", "warp_seconds": 0, "warp_blocks": 0}]}]}"#,
    )
    .unwrap();
    let outcome = campaign()
        .runs(10)
        .contract("TwoStep")
        .panics(PanicSet::none())
        .regression_file(&file, "t")
        .run()
        .unwrap();
    assert!(outcome.passed());
    assert!(
        outcome
            .warnings
            .iter()
            .any(|w| w.contains("stale") && w.contains("TwoStep.explode(uint256)")),
        "{:?}",
        outcome.warnings
    );

    std::fs::write(&file, "[1, 2").unwrap();
    let err = campaign()
        .contract("TwoStep")
        .regression_file(&file, "t")
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("stale.json") && err.contains("not a harvey regression file"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "[1, 2",
        "nothing is overwritten"
    );
}

#[test]
fn a_broken_post_setup_state_fails_without_calls() {
    let outcome = campaign()
        .contract("Bank")
        .invariant("never holds", |_: &Chain| false)
        .run()
        .unwrap();
    let failure = failure(&outcome);
    assert!(failure.calls.is_empty());
    assert_eq!(outcome.stats.sequences, 0);
}

#[test]
fn setup_problems_are_errors() {
    let err = campaign()
        .contract("NoSuchContract")
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("NoSuchContract") && err.contains("TwoStep"),
        "{err}"
    );
    let err = campaign().run().unwrap_err().to_string();
    assert!(err.contains("no contract to fuzz"), "{err}");
    let err = campaign()
        .setup(|chain: &mut Chain| {
            chain.deploy("RevertingConstructor", (U256::from(5),))?;
            Ok(())
        })
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("RevertingConstructor") && err.contains("x too small"),
        "{err}"
    );
    let err = campaign()
        .contract("TwoStep")
        .setup(|chain: &mut Chain| chain.deploy("Bank", ()).map(drop))
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("did not deploy") && err.contains("deployed: Bank"),
        "{err}"
    );
}

#[test]
fn with_a_setup_named_contracts_choose_what_is_fuzzed() {
    let outcome = campaign()
        .runs(200)
        .contract("Bank")
        .setup(|chain: &mut Chain| {
            chain.deploy("TwoStep", ())?;
            chain.deploy("Bank", ())?;
            Ok(())
        })
        .run()
        .unwrap();
    assert!(outcome.passed(), "TwoStep is deployed but not fuzzed");
    assert!(outcome.stats.functions.iter().all(|f| f.contract == "Bank"));
}

#[test]
fn an_invariant_that_panics_is_a_violation() {
    let outcome = campaign()
        .contract("Bank")
        .invariant("panics", |chain: &Chain| {
            let bank = chain.get("Bank");
            let total: U256 = chain.view(bank, "total()", ()).unwrap();
            assert!(total.is_zero(), "total is {total}");
            true
        })
        .run()
        .unwrap();
    let failure = failure(&outcome);
    assert!(
        matches!(&failure.violation, Violation::Invariant { message, .. } if message.starts_with("panicked: total is")),
        "{:?}",
        failure.violation
    );
    assert_eq!(calls(failure), ["Bank.deposit"]);
    let report = harvey::report::failure_report(failure, Some("bank"));
    assert!(
        report.contains("Replay: HARVEY_SEED=1 cargo test bank"),
        "{report}"
    );
}

#[test]
fn workers_share_the_budget_and_stop_on_the_first_violation() {
    let outcome = campaign().workers(2).contract("TwoStep").run().unwrap();
    assert_eq!(calls(failure(&outcome)), ["TwoStep.arm", "TwoStep.fire"]);
}

#[test]
fn every_abi_type_is_encoded_so_that_solidity_accepts_it() {
    let outcome = campaign().runs(2_000).contract("Shapes").run().unwrap();
    assert!(outcome.passed());
    assert_eq!(
        outcome.warnings,
        [
            "skipping Shapes.register(function): parameter `callback` (function): function-pointer parameters are not supported"
        ]
    );
    let functions: Vec<(&str, u64, u64)> = outcome
        .stats
        .functions
        .iter()
        .map(|f| (f.signature.as_str(), f.calls, f.reverts))
        .collect();
    assert_eq!(functions.len(), 4, "{functions:?}");
    for (signature, calls, reverts) in functions {
        assert!(calls > 100, "{signature} called {calls} times");
        // Generated values stay far below the senders' balances: nothing may revert.
        assert_eq!(
            reverts, 0,
            "{signature}: {reverts} of {calls} calls reverted"
        );
    }
}

#[test]
fn runs_and_time_together_end_at_whichever_comes_first() {
    // `time` after `runs` keeps the run limit (it used to clear it).
    for campaign in [
        campaign_on(repo())
            .runs(40)
            .time(std::time::Duration::from_secs(600)),
        campaign_on(repo())
            .time(std::time::Duration::from_secs(600))
            .runs(40),
    ] {
        let outcome = campaign.seed(2).contract("Bank").run().unwrap();
        assert!(outcome.passed());
        assert_eq!(outcome.stats.sequences, 40);
    }
}

#[test]
fn a_time_budget_alone_bounds_the_campaign() {
    let budget = std::time::Duration::from_millis(300);
    let outcome = campaign_on(repo())
        .seed(2)
        .time(budget)
        .contract("Bank")
        .run()
        .unwrap();
    assert!(outcome.passed());
    assert!(outcome.stats.sequences > 0);
    assert!(
        outcome.stats.elapsed >= budget,
        "{:?}",
        outcome.stats.elapsed
    );
}

#[test]
fn a_setup_that_differs_between_workers_is_an_error() {
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let err = campaign()
        .workers(2)
        .setup(|chain: &mut Chain| {
            // Deploys one contract on the first call and two afterwards.
            if calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) > 0 {
                chain.deploy("Bank", ())?;
            }
            chain.deploy("TwoStep", ())?;
            Ok(())
        })
        .run()
        .unwrap_err()
        .to_string();
    assert!(err.contains("setup function is not deterministic"), "{err}");
}
