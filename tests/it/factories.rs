//! Contracts created while fuzzing (issue 19): a factory's pools (CREATE2) and a cloner's
//! minimal proxies (EIP-1167) become callable with the functions of the contract whose code
//! they run, their bugs are found through them and reported by that name, and the failure
//! replays from its regression file.

use harvey::chain::{Chain, PanicCode};
use harvey::{Campaign, Outcome};

use crate::support::{assert_panic_at, calls, campaign_on, failure, repo};

fn campaign<'a>(contract: &str) -> Campaign<'a> {
    campaign_on(repo())
        .contract(contract)
        .seed(1)
        .runs(20_000)
        .depth(8)
}

/// The function rows of the summary's created contracts.
fn created_rows(outcome: &Outcome) -> Vec<String> {
    outcome
        .stats
        .functions
        .iter()
        .filter(|f| f.address.is_none())
        .map(|f| format!("{}.{}", f.contract, f.signature))
        .collect()
}

/// Asserts that the shrunk `failure` is `[create, fund, empty]`, or with `fund` twice: two
/// amounts whose sum is out of one call's range stay two calls after shrinking.
fn assert_funded_then_emptied(failure: &harvey::Failure, [create, fund, empty]: [&str; 3]) {
    let calls = calls(failure);
    assert!(
        (3..=4).contains(&calls.len())
            && calls[0] == create
            && calls[calls.len() - 1] == empty
            && calls[1..calls.len() - 1].iter().all(|c| c == fund),
        "{calls:?}"
    );
}

#[test]
fn a_bug_in_a_created_pool_is_found_through_the_factory() {
    let outcome = campaign("PoolFactory").run().unwrap();
    let failure = failure(&outcome);
    assert_panic_at(
        failure,
        PanicCode::Assert,
        "contracts/factories/Pools.sol:42",
        "Pool",
    );
    // Created, deposited, withdrawn whole.
    assert_funded_then_emptied(
        failure,
        ["PoolFactory.createPool", "Pool.deposit", "Pool.withdraw"],
    );
    // The pool is called where the factory created it, and says it was created.
    let pool = &failure.calls[1];
    assert_eq!(pool.instance, Some(0));
    assert_eq!(failure.calls[2].address, pool.address);
    assert_ne!(pool.address, failure.calls[0].address);
    let report = harvey::report::failure_report(failure, None);
    assert!(report.contains("Pool@0x"), "{report}");
    assert!(
        report.contains(&format!("  Pool         {}\n", pool.address)),
        "the accounts name the pool: {report}"
    );
    let summary = harvey::report::summary(&outcome);
    assert!(
        summary.contains("Pool@created.deposit(uint256)"),
        "{summary}"
    );
    assert!(
        created_rows(&outcome).contains(&"Pool.withdraw(uint256)".to_string()),
        "{:?}",
        outcome.stats.functions
    );
}

#[test]
fn a_bug_behind_a_minimal_proxy_is_found_with_the_implementations_functions() {
    let outcome = campaign("VaultCloner").run().unwrap();
    let failure = failure(&outcome);
    assert_panic_at(
        failure,
        PanicCode::Assert,
        "contracts/factories/Clones.sol:54",
        "CloneVault",
    );
    // Opened, credited, spent whole.
    assert_funded_then_emptied(
        failure,
        ["VaultCloner.open", "CloneVault.credit", "CloneVault.spend"],
    );
    // One sender opens, credits and spends: the vault is its own.
    let sender = failure.calls[0].sender;
    assert!(failure.calls.iter().all(|c| c.sender == sender));
}

#[test]
fn created_contracts_are_not_fuzzed_when_setup_names_the_targets_or_says_so() {
    let named = |chain: &mut Chain| -> harvey::Result<()> {
        let factory = chain.deploy("PoolFactory", ())?;
        chain.fuzz(factory);
        Ok(())
    };
    let outcome = campaign_on(repo())
        .setup(named)
        .seed(1)
        .runs(3_000)
        .run()
        .unwrap();
    assert!(outcome.failure().is_none());
    assert!(
        created_rows(&outcome).is_empty(),
        "as forge: named targets only"
    );
    // Asked for, they are fuzzed again.
    let opted_in = |chain: &mut Chain| -> harvey::Result<()> {
        let factory = chain.deploy("PoolFactory", ())?;
        chain.fuzz(factory);
        chain.fuzz_created(true);
        Ok(())
    };
    let outcome = campaign_on(repo())
        .setup(opted_in)
        .seed(1)
        .runs(20_000)
        .depth(8)
        .run()
        .unwrap();
    assert_eq!(failure(&outcome).calls[0].contract, "PoolFactory");
}

#[test]
fn a_regression_entry_through_a_created_contract_replays() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pools.json");
    let found = campaign("PoolFactory")
        .regression_file(&file, "pools")
        .run()
        .unwrap();
    let first = failure(&found).clone();
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("\"instance\": 0"), "{saved}");
    // A campaign with no budget to fuzz finds it again by replaying the file.
    let replayed = campaign("PoolFactory")
        .regression_file(&file, "pools")
        .runs(1)
        .run()
        .unwrap();
    let again = failure(&replayed);
    assert!(again.from_regression);
    assert_eq!(calls(again), calls(&first));
    assert_eq!(again.violation, first.violation);
}
