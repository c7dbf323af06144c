//! Witnesses for the bugs planted in contracts that factories create
//! (`contracts/factories/`, issue 19): each is reachable by direct calls, and only through
//! a contract the factory created.

use harvey::prelude::*;

use crate::support::{assert_assert, chain, send, uint};

/// The address a call returned.
fn returned_address(outcome: &harvey::chain::TxOutcome) -> Address {
    assert!(outcome.is_success(), "{outcome:?}");
    Address::from_slice(&outcome.output[12..32])
}

#[test]
fn a_created_pool_charges_its_fee_on_the_last_withdrawal() {
    let mut chain = chain();
    let factory = chain.deploy("PoolFactory", ()).unwrap();
    let a = chain.senders()[0];
    let pool = returned_address(&send(
        &mut chain,
        a,
        factory,
        "createPool(uint256)",
        &[uint(5)],
        U256::ZERO,
    ));
    // CREATE2 with the fee as salt: one pool per fee.
    let again = send(
        &mut chain,
        a,
        factory,
        "createPool(uint256)",
        &[uint(5)],
        U256::ZERO,
    );
    assert!(!again.is_success());
    assert!(
        send(
            &mut chain,
            a,
            pool,
            "deposit(uint256)",
            &[uint(1000)],
            U256::ZERO
        )
        .is_success()
    );
    // A partial withdrawal is fine.
    assert!(
        send(
            &mut chain,
            a,
            pool,
            "withdraw(uint256)",
            &[uint(400)],
            U256::ZERO
        )
        .is_success()
    );
    assert_assert(&send(
        &mut chain,
        a,
        pool,
        "withdraw(uint256)",
        &[uint(600)],
        U256::ZERO,
    ));
}

#[test]
fn a_cloned_vault_rejects_spending_everything_above_a_thousand() {
    let mut chain = chain();
    let cloner = chain.deploy("VaultCloner", ()).unwrap();
    let [alice, bob] = [chain.senders()[0], chain.senders()[1]];
    let vault = returned_address(&send(&mut chain, alice, cloner, "open()", &[], U256::ZERO));
    // A minimal proxy: 45 bytes delegating to the implementation.
    assert_eq!(chain.code(vault).len(), 45);
    let implementation: Address = chain.view(cloner, "implementation()", ()).unwrap();
    assert_ne!(vault, implementation);
    // Only the opener may credit and spend.
    let by_bob = send(
        &mut chain,
        bob,
        vault,
        "credit(uint256)",
        &[uint(5000)],
        U256::ZERO,
    );
    assert!(!by_bob.is_success());
    assert!(
        send(
            &mut chain,
            alice,
            vault,
            "credit(uint256)",
            &[uint(5000)],
            U256::ZERO
        )
        .is_success()
    );
    assert!(
        send(
            &mut chain,
            alice,
            vault,
            "spend(uint256)",
            &[uint(4000)],
            U256::ZERO
        )
        .is_success()
    );
    // Emptying it from 1000 or less is fine; 5000 → 0 in one go is the bug.
    assert!(
        send(
            &mut chain,
            alice,
            vault,
            "spend(uint256)",
            &[uint(1000)],
            U256::ZERO
        )
        .is_success()
    );
    assert!(
        send(
            &mut chain,
            alice,
            vault,
            "credit(uint256)",
            &[uint(5000)],
            U256::ZERO
        )
        .is_success()
    );
    assert_assert(&send(
        &mut chain,
        alice,
        vault,
        "spend(uint256)",
        &[uint(5000)],
        U256::ZERO,
    ));
}
