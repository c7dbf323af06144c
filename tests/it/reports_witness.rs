//! Witnesses for the planted bugs of `contracts/bugs/Thresholds.sol`, reached by direct
//! calls at their exact boundaries: the values `reports` expects shrinking to find.

use harvey::chain::{RevertReason, TxOptions, TxOutcome, TxStatus};
use harvey::prelude::*;

use crate::support::{ETHER, deployed, ether, send};

/// `Reserve.INITIAL`: any larger release breaks the float.
pub(crate) fn initial() -> U256 {
    ether(1_000)
}

#[test]
fn reserve_releases_up_to_its_float() {
    let (mut chain, reserve) = deployed("Reserve");
    let alice = chain.senders()[0];
    let outcome = send(
        &mut chain,
        alice,
        reserve,
        "release(uint256)",
        &[initial().into()],
        U256::ZERO,
    );
    assert!(outcome.is_success(), "{}", outcome.status);
    let float: U256 = chain.view(reserve, "float()", ()).unwrap();
    assert_eq!(float, U256::ZERO);
}

#[test]
fn reserve_wraps_its_float_one_wei_past_it() {
    let (mut chain, reserve) = deployed("Reserve");
    let alice = chain.senders()[0];
    let outcome = send(
        &mut chain,
        alice,
        reserve,
        "release(uint256)",
        &[(initial() + U256::ONE).into()],
        U256::ZERO,
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
            .try_call_with(
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
    assert!(
        chain
            .try_call(reserve, "close()", &[])
            .unwrap()
            .is_success()
    );
}

#[test]
fn tip_jar_asserts_one_wei_above_its_cap() {
    let (mut chain, jar) = deployed("TipJar");
    let alice = chain.senders()[0];
    let note = U256::from(12_345);
    let at_cap = send(
        &mut chain,
        alice,
        jar,
        "tip(uint256)",
        &[note.into()],
        U256::from(ETHER),
    );
    assert!(at_cap.is_success(), "{}", at_cap.status);
    let above = send(
        &mut chain,
        alice,
        jar,
        "tip(uint256)",
        &[note.into()],
        U256::from(ETHER) + U256::ONE,
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
        let alice = chain.senders()[0];
        let locked = send(
            &mut chain,
            alice,
            lock,
            "lock(uint256)",
            &[U256::from(amount).into()],
            U256::ZERO,
        );
        assert!(locked.is_success(), "{}", locked.status);
        chain.skip(wait);
        chain.try_call(lock, "release()", &[]).unwrap()
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
