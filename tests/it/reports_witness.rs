//! Witnesses for the planted bugs of `contracts/bugs/Thresholds.sol`, reached by direct
//! calls at their exact boundaries: the values `tests/reports.rs` expects shrinking to find.

use std::path::Path;

use alloy_dyn_abi::DynSolValue;
use harvey::chain::{RevertReason, TxOptions, TxOutcome, TxStatus};
use harvey::prelude::*;

const ETHER: u64 = 1_000_000_000_000_000_000;

fn deployed(name: &str) -> (Chain, Address) {
    let artifacts = harvey::project::compiled(Path::new(env!("CARGO_MANIFEST_DIR")))
        .expect("contracts/ compiles");
    let mut chain = Chain::new(artifacts);
    let at = chain
        .deploy(name, ())
        .unwrap_or_else(|e| panic!("deploying {name}: {e}"));
    (chain, at)
}

fn send(chain: &mut Chain, to: Address, value: U256, signature: &str, arg: U256) -> TxOutcome {
    let options = TxOptions {
        sender: Some(chain.senders()[0]),
        value,
    };
    chain
        .call_with(to, signature, &[DynSolValue::from(arg)], options)
        .unwrap_or_else(|e| panic!("calling {signature}: {e}"))
}

fn initial() -> U256 {
    U256::from(1_000u64) * U256::from(ETHER)
}

#[test]
fn reserve_releases_up_to_its_float() {
    let (mut chain, reserve) = deployed("Reserve");
    let outcome = send(
        &mut chain,
        reserve,
        U256::ZERO,
        "release(uint256)",
        initial(),
    );
    assert!(outcome.is_success(), "{}", outcome.status);
    let float: U256 = chain.view(reserve, "float()", ()).unwrap();
    assert_eq!(float, U256::ZERO);
}

#[test]
fn reserve_wraps_its_float_one_wei_past_it() {
    let (mut chain, reserve) = deployed("Reserve");
    let outcome = send(
        &mut chain,
        reserve,
        U256::ZERO,
        "release(uint256)",
        initial() + U256::ONE,
    );
    assert!(outcome.is_success(), "{}", outcome.status);
    let float: U256 = chain.view(reserve, "float()", ()).unwrap();
    assert_eq!(float, U256::MAX, "the float wrapped around");
    assert!(float > initial());
}

#[test]
fn reserve_close_reverts_for_every_sender_but_the_owner() {
    let (mut chain, reserve) = deployed("Reserve");
    for sender in chain.senders().to_vec() {
        let outcome = chain
            .call_with(
                reserve,
                "close()",
                &[],
                TxOptions {
                    sender: Some(sender),
                    value: U256::ZERO,
                },
            )
            .unwrap();
        assert!(
            matches!(&outcome.status, TxStatus::Revert(RevertReason::Error(m)) if m == "only the owner"),
            "{}",
            outcome.status
        );
    }
    assert!(chain.call(reserve, "close()", &[]).unwrap().is_success());
}

#[test]
fn tip_jar_asserts_one_wei_above_its_cap() {
    let (mut chain, jar) = deployed("TipJar");
    let note = U256::from(12_345);
    let at_cap = send(&mut chain, jar, U256::from(ETHER), "tip(uint256)", note);
    assert!(at_cap.is_success(), "{}", at_cap.status);
    let above = send(
        &mut chain,
        jar,
        U256::from(ETHER) + U256::ONE,
        "tip(uint256)",
        note,
    );
    assert!(
        outcome_is_assert(&above),
        "expected a failed assert, got {}",
        above.status
    );
}

fn outcome_is_assert(outcome: &TxOutcome) -> bool {
    outcome.revert_reason().is_some_and(RevertReason::is_assert)
}

#[test]
fn timelock_asserts_above_its_limit_one_second_after_the_delay() {
    let release = |amount: u64, wait: u64| {
        let (mut chain, lock) = deployed("Timelock");
        let locked = send(
            &mut chain,
            lock,
            U256::ZERO,
            "lock(uint256)",
            U256::from(amount),
        );
        assert!(locked.is_success(), "{}", locked.status);
        chain.warp(wait);
        chain.call(lock, "release()", &[]).unwrap()
    };
    let day = 86_400;
    assert!(outcome_is_assert(&release(1_001, day + 1)));
    assert!(release(1_000, day + 1).is_success());
    let early = release(1_001, day);
    assert!(
        matches!(&early.status, TxStatus::Revert(RevertReason::Error(m)) if m == "still locked"),
        "{}",
        early.status
    );
}
