//! Witnesses for the bugs planted for sequence fuzzing (`contracts/sequences/`, issue 5):
//! each is reachable by direct calls, and only by the sequence its comment describes.

use harvey::chain::{Chain, TxOptions};
use harvey::prelude::*;

use crate::support::{assert_assert, chain, send, uint};

#[test]
fn pipeline_needs_set_copy_check_in_order() {
    let mut chain = chain();
    let at = chain.deploy("Pipeline", ()).unwrap();
    let a = chain.senders()[0];
    // Out of order: the check passes.
    assert!(send(&mut chain, a, at, "copy()", &[], U256::ZERO).is_success());
    assert!(send(&mut chain, a, at, "check(uint256)", &[uint(7)], U256::ZERO).is_success());
    assert!(send(&mut chain, a, at, "set(uint256)", &[uint(1000)], U256::ZERO).is_success());
    assert!(
        send(
            &mut chain,
            a,
            at,
            "check(uint256)",
            &[uint(1007)],
            U256::ZERO
        )
        .is_success()
    );
    assert!(send(&mut chain, a, at, "copy()", &[], U256::ZERO).is_success());
    assert_assert(&send(
        &mut chain,
        a,
        at,
        "check(uint256)",
        &[uint(1007)],
        U256::ZERO,
    ));
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
        chain.try_call_with(sale, "invest()", &[], options).unwrap()
    };
    assert!(invest(&mut chain, a, U256::from(1000) * ether).is_success());
    assert!(
        !chain.view::<bool>(sale, "succeeded()", ()).unwrap(),
        "reaching the goal is not enough"
    );
    assert!(send(&mut chain, b, sale, "withdraw()", &[], U256::ZERO).is_success());
    assert_eq!(
        chain.view::<Address>(sale, "withdrawnBy()", ()).unwrap(),
        Address::ZERO
    );
    assert!(invest(&mut chain, a, U256::from(1)).is_success());
    assert!(chain.view::<bool>(sale, "succeeded()", ()).unwrap());
    assert!(send(&mut chain, b, sale, "withdraw()", &[], U256::ZERO).is_success());
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
        assert!(send(&mut chain, a, at, "increment()", &[], U256::ZERO).is_success());
    }
    assert!(send(&mut chain, a, at, "reset()", &[], U256::ZERO).is_success());
    for _ in 0..39 {
        assert!(send(&mut chain, a, at, "increment()", &[], U256::ZERO).is_success());
    }
    assert_assert(&send(&mut chain, a, at, "increment()", &[], U256::ZERO));
}

#[test]
fn the_stairs_assert_on_the_twentieth_climb() {
    let mut chain = chain();
    let at = chain.deploy("Stairs", ()).unwrap();
    let a = chain.senders()[0];
    for _ in 0..19 {
        assert!(send(&mut chain, a, at, "climb()", &[], U256::ZERO).is_success());
    }
    assert_assert(&send(&mut chain, a, at, "climb()", &[], U256::ZERO));
}

#[test]
fn commit_reveal_needs_the_same_value_from_the_same_sender() {
    let mut chain = chain();
    let at = chain.deploy("CommitReveal", ()).unwrap();
    let (a, b) = (chain.senders()[0], chain.senders()[1]);
    assert!(
        send(
            &mut chain,
            a,
            at,
            "commit(uint256)",
            &[uint(123_456)],
            U256::ZERO
        )
        .is_success()
    );
    assert!(
        send(
            &mut chain,
            a,
            at,
            "reveal(uint256)",
            &[uint(123_457)],
            U256::ZERO
        )
        .is_success()
    );
    assert!(
        send(
            &mut chain,
            b,
            at,
            "reveal(uint256)",
            &[uint(123_456)],
            U256::ZERO
        )
        .is_success()
    );
    assert_assert(&send(
        &mut chain,
        a,
        at,
        "reveal(uint256)",
        &[uint(123_456)],
        U256::ZERO,
    ));
}

#[test]
fn handshake_needs_two_senders() {
    let mut chain = chain();
    let at = chain.deploy("Handshake", ()).unwrap();
    let (a, b) = (chain.senders()[0], chain.senders()[1]);
    // One sender alone never gets an acceptor.
    for sig in ["propose()", "accept()", "settle()", "settle()"] {
        assert!(send(&mut chain, a, at, sig, &[], U256::ZERO).is_success());
    }
    assert!(send(&mut chain, b, at, "accept()", &[], U256::ZERO).is_success());
    assert!(send(&mut chain, a, at, "settle()", &[], U256::ZERO).is_success());
    assert_assert(&send(&mut chain, a, at, "settle()", &[], U256::ZERO));
}

#[test]
fn guarded_level_stays_below_ten_so_only_fuzzed_storage_reaches_the_assert() {
    let mut chain = chain();
    let at = chain.deploy("Guarded", ()).unwrap();
    let a = chain.senders()[0];
    for by in [9, 5, 1, 10, 1000, 3] {
        assert!(send(&mut chain, a, at, "raise(uint256)", &[uint(by)], U256::ZERO).is_success());
        let level: U256 = chain.view(at, "level()", ()).unwrap();
        assert!(level < U256::from(10), "raise({by}) left level at {level}");
    }
    assert!(send(&mut chain, a, at, "lower()", &[], U256::ZERO).is_success());
    assert!(send(&mut chain, a, at, "probe()", &[], U256::ZERO).is_success());
    // What an aggressive run does: write the slot directly.
    chain.set_storage(at, U256::ZERO, U256::from(1000));
    assert_assert(&send(&mut chain, a, at, "probe()", &[], U256::ZERO));
}

#[test]
fn rover_docks_at_the_far_corner_only() {
    let mut chain = chain();
    let at = chain.deploy("Rover", ()).unwrap();
    let a = chain.senders()[0];
    // Off the grid: a revert.
    assert!(!send(&mut chain, a, at, "west()", &[], U256::ZERO).is_success());
    // Every other cell docks: the whole bottom row, the whole right column but the corner.
    for _ in 0..5 {
        assert!(send(&mut chain, a, at, "dock()", &[], U256::ZERO).is_success());
        assert!(send(&mut chain, a, at, "east()", &[], U256::ZERO).is_success());
    }
    assert!(!send(&mut chain, a, at, "east()", &[], U256::ZERO).is_success());
    for _ in 0..5 {
        assert!(send(&mut chain, a, at, "dock()", &[], U256::ZERO).is_success());
        assert!(send(&mut chain, a, at, "north()", &[], U256::ZERO).is_success());
    }
    assert_assert(&send(&mut chain, a, at, "dock()", &[], U256::ZERO));
    // One step back, and it docks again.
    assert!(send(&mut chain, a, at, "south()", &[], U256::ZERO).is_success());
    assert!(send(&mut chain, a, at, "dock()", &[], U256::ZERO).is_success());
}
