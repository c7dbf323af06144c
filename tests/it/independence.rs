//! Whether fuzzed calls are independent of one another (issue 41), read from the deployed
//! code (`contracts/stateless/Independence.sol`): what the analysis decides for each kind of
//! contract, and its soundness against execution: where it finds the calls independent, a
//! call after any sequence of calls ends exactly as it does alone.

use harvey::prelude::*;
use proptest::prelude::*;

use crate::support::{campaign_on, deployed, repo};

/// Whether a campaign fuzzing `contract` found its calls independent.
fn independent(contract: &str) -> bool {
    let outcome = campaign_on(repo())
        .contract(contract)
        .seed(1)
        .runs(50)
        .run()
        .unwrap_or_else(|e| panic!("{contract}: {e}"));
    outcome.stats.sequencing.independent_calls
}

#[test]
fn independence_is_read_from_the_code() {
    // Arithmetic and a STATICCALL to a pure helper: independent.
    assert!(independent("Steps"));
    // A storage write; a balance read where calls send ether; a clock read where harvey
    // moves the block between calls; a cheatcode named (a view one reads the clock).
    for dependent in ["Tally", "Till", "Stamp", "CheatClock"] {
        assert!(!independent(dependent), "{dependent}");
    }
}

/// How a call of `signature` with `x` from `sender` ends: everything a later check can see.
fn ending(
    chain: &mut Chain,
    to: Address,
    signature: &str,
    sender: Address,
    x: U256,
) -> (String, Bytes, u64, usize) {
    let outcome = chain
        .try_call_as(sender, to, signature, (x,))
        .expect("the call runs");
    chain.commit();
    (
        outcome.status.to_string(),
        outcome.output,
        outcome.gas_used,
        outcome.logs.len(),
    )
}

#[test]
fn a_dependent_call_ends_otherwise_after_others() {
    // The analysis is not vacuous: where it says "dependent", a prefix does change a call.
    let (mut alone_chain, tally) = deployed("Tally");
    let (mut chain, _) = deployed("Tally");
    let sender = chain.senders()[0];
    let alone = ending(
        &mut alone_chain,
        tally,
        "hit(uint256)",
        sender,
        U256::from(7),
    );
    ending(&mut chain, tally, "hit(uint256)", sender, U256::from(1));
    assert_ne!(
        ending(&mut chain, tally, "hit(uint256)", sender, U256::from(7)),
        alone
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// `Steps`' calls are independent: after any prefix of calls (any senders, inputs and
    /// waits), a call ends with the status, output, gas and events it has alone.
    #[test]
    fn an_independent_call_ends_as_it_does_alone(
        prefix in proptest::collection::vec((0usize..3, any::<u64>(), 0u64..1_000_000), 0..6),
        last in any::<u64>(),
        last_sender in 0usize..3,
    ) {
        let (mut fresh, steps) = deployed("Steps");
        let (mut after, _) = deployed("Steps");
        let senders = fresh.senders().to_vec();
        let alone = ending(&mut fresh, steps, "step(uint256)", senders[last_sender], U256::from(last));
        for (sender, x, wait) in prefix {
            after.skip(wait);
            ending(&mut after, steps, "step(uint256)", senders[sender], U256::from(x));
        }
        let later = ending(&mut after, steps, "step(uint256)", senders[last_sender], U256::from(last));
        prop_assert_eq!(later, alone);
    }
}
