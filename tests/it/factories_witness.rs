//! Witnesses for the bugs planted in contracts that factories create
//! (`contracts/factories/`, issue 19): each is reachable by direct calls, and only through
//! a contract the factory created.

use harvey::prelude::*;

use crate::support::{assert_assert, chain, returned_address, send, send_uint};

#[test]
fn a_created_pool_charges_its_fee_on_the_last_withdrawal() {
    let mut chain = chain();
    let factory = chain.deploy("PoolFactory", ()).unwrap();
    let a = chain.senders()[0];
    let pool = returned_address(&send_uint(&mut chain, a, factory, "createPool(uint256)", 5));
    // CREATE2 with the fee as salt: one pool per fee.
    assert!(!send_uint(&mut chain, a, factory, "createPool(uint256)", 5).is_success());
    assert!(send_uint(&mut chain, a, pool, "deposit(uint256)", 1000).is_success());
    // A partial withdrawal is fine; the last one fails the assert.
    assert!(send_uint(&mut chain, a, pool, "withdraw(uint256)", 400).is_success());
    assert_assert(&send_uint(&mut chain, a, pool, "withdraw(uint256)", 600));
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
    assert!(!send_uint(&mut chain, bob, vault, "credit(uint256)", 5000).is_success());
    for (signature, amount) in [
        ("credit(uint256)", 5000),
        ("spend(uint256)", 4000),
        // Emptying it from 1000 or less is fine.
        ("spend(uint256)", 1000),
        ("credit(uint256)", 5000),
    ] {
        assert!(send_uint(&mut chain, alice, vault, signature, amount).is_success());
    }
    // 5000 → 0 in one go is the bug.
    assert_assert(&send_uint(&mut chain, alice, vault, "spend(uint256)", 5000));
}
