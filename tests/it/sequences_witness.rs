//! Witnesses for the bugs planted for sequence fuzzing (`contracts/sequences/`, issue 5):
//! each is reachable by direct calls, and only by the sequence its comment describes.

use std::path::Path;

use alloy_dyn_abi::DynSolValue;
use harvey::chain::{Chain, PanicCode, RevertReason, TxOptions, TxOutcome, TxStatus};
use harvey::prelude::*;

fn chain() -> Chain {
    Chain::new(harvey::project::compiled(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap())
}

fn uint(v: u64) -> DynSolValue {
    DynSolValue::Uint(U256::from(v), 256)
}

fn send(
    chain: &mut Chain,
    to: Address,
    from: Address,
    sig: &str,
    args: &[DynSolValue],
) -> TxOutcome {
    let options = TxOptions {
        sender: Some(from),
        value: U256::ZERO,
    };
    chain.call_with(to, sig, args, options).unwrap()
}

fn assert_assert(outcome: &TxOutcome) {
    assert_eq!(
        outcome.status,
        TxStatus::Revert(RevertReason::Panic(PanicCode::Assert)),
        "{outcome:?}"
    );
}

#[test]
fn pipeline_needs_set_copy_check_in_order() {
    let mut chain = chain();
    let at = chain.deploy("Pipeline", ()).unwrap();
    let a = chain.senders()[0];
    // Out of order: the check passes.
    assert!(send(&mut chain, at, a, "copy()", &[]).is_success());
    assert!(send(&mut chain, at, a, "check(uint256)", &[uint(7)]).is_success());
    assert!(send(&mut chain, at, a, "set(uint256)", &[uint(1000)]).is_success());
    assert!(send(&mut chain, at, a, "check(uint256)", &[uint(1007)]).is_success());
    assert!(send(&mut chain, at, a, "copy()", &[]).is_success());
    assert_assert(&send(&mut chain, at, a, "check(uint256)", &[uint(1007)]));
}

#[test]
fn crowdsale_flips_on_the_investment_after_the_goal_then_anyone_withdraws() {
    let mut chain = chain();
    let sale = chain.deploy("Crowdsale", ()).unwrap();
    let (a, b) = (chain.senders()[0], chain.senders()[1]);
    let ether = U256::from(10u64).pow(U256::from(18));
    let invest = |chain: &mut Chain, from, value| {
        let options = TxOptions {
            sender: Some(from),
            value,
        };
        chain.call_with(sale, "invest()", &[], options).unwrap()
    };
    assert!(invest(&mut chain, a, U256::from(1000) * ether).is_success());
    assert!(
        !chain.view::<bool>(sale, "succeeded()", ()).unwrap(),
        "reaching the goal is not enough"
    );
    assert!(send(&mut chain, sale, b, "withdraw()", &[]).is_success());
    assert_eq!(
        chain.view::<Address>(sale, "withdrawnBy()", ()).unwrap(),
        Address::ZERO
    );
    assert!(invest(&mut chain, a, U256::from(1)).is_success());
    assert!(chain.view::<bool>(sale, "succeeded()", ()).unwrap());
    assert!(send(&mut chain, sale, b, "withdraw()", &[]).is_success());
    let owner: Address = chain.view(sale, "owner()", ()).unwrap();
    let by: Address = chain.view(sale, "withdrawnBy()", ()).unwrap();
    assert_eq!(by, b);
    assert_ne!(by, owner, "a non-owner took the funds");
    assert_eq!(chain.balance(sale), U256::ZERO);
}

#[test]
fn counter_asserts_on_the_fortieth_increment_without_reset() {
    let mut chain = chain();
    let at = chain.deploy("Counter", ()).unwrap();
    let a = chain.senders()[0];
    for _ in 0..39 {
        assert!(send(&mut chain, at, a, "increment()", &[]).is_success());
    }
    assert!(send(&mut chain, at, a, "reset()", &[]).is_success());
    for _ in 0..39 {
        assert!(send(&mut chain, at, a, "increment()", &[]).is_success());
    }
    assert_assert(&send(&mut chain, at, a, "increment()", &[]));
}

#[test]
fn commit_reveal_needs_the_same_value_from_the_same_sender() {
    let mut chain = chain();
    let at = chain.deploy("CommitReveal", ()).unwrap();
    let (a, b) = (chain.senders()[0], chain.senders()[1]);
    assert!(send(&mut chain, at, a, "commit(uint256)", &[uint(123_456)]).is_success());
    assert!(send(&mut chain, at, a, "reveal(uint256)", &[uint(123_457)]).is_success());
    assert!(send(&mut chain, at, b, "reveal(uint256)", &[uint(123_456)]).is_success());
    assert_assert(&send(
        &mut chain,
        at,
        a,
        "reveal(uint256)",
        &[uint(123_456)],
    ));
}

#[test]
fn handshake_needs_two_senders() {
    let mut chain = chain();
    let at = chain.deploy("Handshake", ()).unwrap();
    let (a, b) = (chain.senders()[0], chain.senders()[1]);
    // One sender alone never gets an acceptor.
    for sig in ["propose()", "accept()", "settle()", "settle()"] {
        assert!(send(&mut chain, at, a, sig, &[]).is_success());
    }
    assert!(send(&mut chain, at, b, "accept()", &[]).is_success());
    assert!(send(&mut chain, at, a, "settle()", &[]).is_success());
    assert_assert(&send(&mut chain, at, a, "settle()", &[]));
}

#[test]
fn guarded_level_stays_below_ten_so_only_fuzzed_storage_reaches_the_assert() {
    let mut chain = chain();
    let at = chain.deploy("Guarded", ()).unwrap();
    let a = chain.senders()[0];
    for by in [9, 5, 1, 10, 1000, 3] {
        assert!(send(&mut chain, at, a, "raise(uint256)", &[uint(by)]).is_success());
        let level: U256 = chain.view(at, "level()", ()).unwrap();
        assert!(level < U256::from(10), "raise({by}) left level at {level}");
    }
    assert!(send(&mut chain, at, a, "lower()", &[]).is_success());
    assert!(send(&mut chain, at, a, "probe()", &[]).is_success());
    // What an aggressive run does: write the slot directly.
    chain.set_storage(at, U256::ZERO, U256::from(1000));
    assert_assert(&send(&mut chain, at, a, "probe()", &[]));
}
