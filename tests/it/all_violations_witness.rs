//! Witnesses for the contracts of `all_violations`, `contracts/bugs/Hive.sol` and `Gate.sol`:
//! each bug is reached by direct calls, and the calls next to each bug behave, so a campaign
//! can only report those bugs.

use alloy_dyn_abi::DynSolValue;
use harvey::chain::{PanicCode, RevertReason, TxOutcome, TxStatus};
use harvey::prelude::*;

use crate::support::{assert_assert, assertion_events, deployed, send, uint};

/// Calls `signature` on the freshly deployed `at` from the first sender.
fn call(chain: &mut Chain, at: Address, signature: &str, args: &[DynSolValue]) -> TxOutcome {
    let from = chain.senders()[0];
    send(chain, from, at, signature, args, U256::ZERO)
}

#[test]
fn each_hive_bug_is_reached_by_direct_calls() {
    let (mut chain, hive) = deployed("Hive");
    assert_assert(&call(&mut chain, hive, "knock(uint64)", &[uint(0xBEE)]));
    assert!(call(&mut chain, hive, "knock(uint64)", &[uint(0xBEF)]).is_success());

    assert!(call(&mut chain, hive, "fire()", &[]).is_success());
    assert!(call(&mut chain, hive, "arm(uint64)", &[uint(76)]).is_success());
    assert!(call(&mut chain, hive, "fire()", &[]).is_success());
    assert!(call(&mut chain, hive, "arm(uint64)", &[uint(77)]).is_success());
    assert_assert(&call(&mut chain, hive, "fire()", &[]));

    assert_assert(&call(&mut chain, hive, "left(uint64)", &[uint(500)]));
    assert_assert(&call(&mut chain, hive, "right(uint64)", &[uint(499)]));
    assert!(call(&mut chain, hive, "left(uint64)", &[uint(499)]).is_success());
    assert!(call(&mut chain, hive, "right(uint64)", &[uint(500)]).is_success());

    assert!(call(&mut chain, hive, "buzz(uint64)", &[uint(4243)]).is_success());
    assert!(assertion_events(&chain).is_empty());
    assert!(call(&mut chain, hive, "buzz(uint64)", &[uint(4242)]).is_success());
    assert_eq!(assertion_events(&chain), ["buzzed the queen"]);

    assert_eq!(
        call(&mut chain, hive, "split(uint64)", &[uint(14)]).status,
        TxStatus::Revert(RevertReason::Panic(PanicCode::DivisionByZero))
    );
    assert!(call(&mut chain, hive, "split(uint64)", &[uint(4)]).is_success());

    for _ in 0..3 {
        assert!(call(&mut chain, hive, "visit()", &[]).is_success());
    }
    let visits: U256 = chain.view(hive, "visits()", ()).unwrap();
    assert_eq!(visits, U256::from(3));
}

#[test]
fn the_gate_passes_on_the_locks_assert() {
    let mut chain = crate::support::chain();
    let lock = chain.deploy("Lock", ()).unwrap();
    let gate = chain.deploy("Gate", (lock,)).unwrap();
    assert!(call(&mut chain, gate, "enter(uint64)", &[uint(0x5AFF)]).is_success());
    assert_assert(&call(&mut chain, gate, "enter(uint64)", &[uint(0x5AFE)]));
}
