//! Hostile contracts under whole campaigns (issue 19): recursion to the call-depth limit,
//! return-data and memory bombs, garbage to every precompile and to CREATE — every campaign
//! ends and reports only what is a bug; contracts that cannot be deployed are setup errors
//! naming them. Witnesses are the direct calls in each test.

use harvey::chain::{Chain, PanicCode};

use crate::support::{
    assert_assert, assert_panic_at, campaign_on, chain, failure, repo, send_uint,
};

#[test]
fn a_bug_after_a_deep_recursion_is_found_and_the_depth_limit_is_quiet() {
    // Witness: 200 levels deep, the assertion fails; the call-depth limit only reverts.
    let mut chain = chain();
    let recursor = chain.deploy("Recursor", ()).unwrap();
    let a = chain.senders()[0];
    assert_assert(&send_uint(&mut chain, a, recursor, "plunge(uint256)", 200));
    assert!(send_uint(&mut chain, a, recursor, "plunge(uint256)", 199).is_success());
    let too_deep = send_uint(&mut chain, a, recursor, "plunge(uint256)", 1_999);
    assert!(!too_deep.is_success(), "{too_deep:?}");
    assert_ne!(
        too_deep.status.to_string(),
        "reverted with Panic(0x01): assertion failed"
    );
    let outcome = campaign_on(repo())
        .contract("Recursor")
        .seed(1)
        .runs(3_000)
        .run()
        .unwrap();
    assert_panic_at(
        failure(&outcome),
        PanicCode::Assert,
        "contracts/hostile/Recursor.sol:17",
        "Recursor",
    );
}

#[test]
fn bombs_only_run_out_of_gas_and_report_nothing() {
    // Witnesses: each bomb ends, out of gas or reverted, never taking the process down.
    let mut chain = chain();
    let bombs = chain.deploy("Bombs", ()).unwrap();
    let a = chain.senders()[0];
    for signature in ["returnBomb()", "revertBomb()"] {
        let outcome = chain.try_call_as(a, bombs, signature, ()).unwrap();
        assert!(!outcome.is_success(), "{signature}: {outcome:?}");
    }
    let huge = send_uint(&mut chain, a, bombs, "touch(uint256)", u64::MAX);
    assert!(!huge.is_success(), "{huge:?}");
    let outcome = campaign_on(repo())
        .contract("Bombs")
        .seed(1)
        .runs(2_000)
        .panics("all".parse().unwrap())
        .run()
        .unwrap();
    assert!(
        outcome.passed(),
        "{}",
        harvey::report::failures_report(&outcome.failures, None)
    );
    // Every function was called, precompiles and garbage creations included.
    assert!(
        outcome.stats.functions.iter().all(|f| f.calls > 0),
        "{:?}",
        outcome.stats.functions
    );
}

#[test]
fn contracts_that_cannot_be_deployed_are_setup_errors_naming_them() {
    for (contract, says) in [
        ("AlwaysReverts", "no deployment today"),
        ("SelfDestructs", "self-destructed"),
    ] {
        let error = campaign_on(repo())
            .contract(contract)
            .seed(1)
            .runs(10)
            .run()
            .err()
            .unwrap_or_else(|| panic!("{contract} deployed"));
        let text = error.to_string();
        assert!(text.contains(contract) && text.contains(says), "{text}");
    }
    // Through a setup too: the error names the contract.
    let setup = |chain: &mut Chain| -> harvey::Result<()> {
        chain.deploy("AlwaysReverts", ())?;
        Ok(())
    };
    let text = campaign_on(repo())
        .setup(setup)
        .run()
        .err()
        .unwrap()
        .to_string();
    assert!(text.contains("AlwaysReverts"), "{text}");
}
