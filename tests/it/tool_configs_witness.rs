//! Witnesses for the planted bugs of the config-driven harnesses in
//! `tests/fixtures/forge-suites/test/configs` (issue 40): each is reached by direct calls on
//! harvey's chain, as the harness's config deploys it, so a campaign can only report those.

use alloy_dyn_abi::DynSolValue;
use harvey::chain::TxOptions;
use harvey::prelude::*;

use crate::forge_suites_witness::artifacts;
use crate::support::{assert_assert, ether, send, send_uint};

/// The attacker `AirdropEchidna`'s constructor gives its tokens to (its yaml's `sender`).
const ATTACKER: Address = address!("0x1337000000000000000000000000000000000000");

fn balance_of(chain: &Chain, token: Address, holder: Address) -> U256 {
    chain.view(token, "balanceOf(address)", (holder,)).unwrap()
}

/// Whether `from` could transfer 40 of `token`'s tokens to `to`.
fn transfer(chain: &mut Chain, token: Address, from: Address, to: Address) -> bool {
    let args = [DynSolValue::from(to), DynSolValue::from(U256::from(40))];
    send(
        chain,
        from,
        token,
        "transfer(address,uint256)",
        &args,
        U256::ZERO,
    )
    .is_success()
}

/// Without its 10 ether the airdrop does not deploy (`balanceContract`); with them, the
/// attacker's self-transfer doubles its tokens and breaks `invariant_supplyIsFixed`, while a
/// transfer to another holder keeps the supply.
#[test]
fn the_attacker_doubles_its_airdrop_by_a_self_transfer() {
    let mut chain = Chain::new(artifacts());
    assert!(chain.deploy("AirdropEchidna", ()).is_err());
    let funder = chain.deployer();
    chain.set_balance(funder, ether(20));
    let options = TxOptions {
        sender: Some(funder),
        value: ether(10),
    };
    let token = chain.deploy_with("AirdropEchidna", (), options).unwrap();
    chain.set_balance(ATTACKER, ether(1));
    let other = chain.senders()[0];
    let nobody = chain.senders()[1];
    assert!(transfer(&mut chain, token, ATTACKER, other));
    assert_eq!(balance_of(&chain, token, ATTACKER), U256::from(60));
    let supply_kept: bool = chain.view(token, "invariant_supplyIsFixed()", ()).unwrap();
    assert!(supply_kept);
    assert!(transfer(&mut chain, token, ATTACKER, ATTACKER));
    assert!(transfer(&mut chain, token, ATTACKER, ATTACKER));
    assert_eq!(balance_of(&chain, token, ATTACKER), U256::from(140));
    let supply_kept: bool = chain.view(token, "invariant_supplyIsFixed()", ()).unwrap();
    assert!(!supply_kept);
    // A sender who was given nothing cannot move anything.
    assert!(!transfer(&mut chain, token, nobody, nobody));
}

/// A withdrawal of 1,000 leaves `CreditPool`'s total as it was, breaking
/// `property_totalIsTheSumOfBalances`; one of 999 does not.
#[test]
fn a_large_withdrawal_is_not_taken_from_the_pool_total() {
    for (amount, kept) in [(999u64, true), (1000, false)] {
        let mut chain = Chain::new(artifacts());
        let harness = chain.deploy("PoolProperties", ()).unwrap();
        let pool: Address = chain.view(harness, "pool()", ()).unwrap();
        let depositor = address!("0x0000000000000000000000000000000000010000");
        assert!(send_uint(&mut chain, depositor, pool, "deposit(uint256)", amount).is_success());
        assert!(send_uint(&mut chain, depositor, pool, "withdraw(uint256)", amount).is_success());
        let holds: bool = chain
            .view(harness, "property_totalIsTheSumOfBalances()", ())
            .unwrap();
        assert_eq!(holds, kept, "withdrawing {amount}");
    }
}

/// `raise(10)`, `lower(1)`, `raise(60)` fails `GaugeAssertions`' assert; without the lowering
/// the gauge may pass 50.
#[test]
fn the_gauge_passes_fifty_after_a_lowering() {
    let mut chain = Chain::new(artifacts());
    let gauge = chain.deploy("GaugeAssertions", ()).unwrap();
    let user = chain.senders()[0];
    assert!(send_uint(&mut chain, user, gauge, "raise(uint8)", 60).is_success());
    let mut chain = Chain::new(artifacts());
    let gauge = chain.deploy("GaugeAssertions", ()).unwrap();
    assert!(send_uint(&mut chain, user, gauge, "raise(uint8)", 10).is_success());
    assert!(send_uint(&mut chain, user, gauge, "lower(uint8)", 1).is_success());
    assert_assert(&send_uint(&mut chain, user, gauge, "raise(uint8)", 60));
}
