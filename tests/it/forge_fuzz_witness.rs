//! Witnesses for the planted bugs of `tests/fixtures/forge-suites/test/Stateless.t.sol`:
//! each fuzz test, called directly on the test contract (cheatcodes on, `setUp()` run) with
//! the inputs that reach its bug, fails with its assertion, and with inputs next to them
//! passes, so a runner can only report those bugs.

use alloy_primitives::{Address, FixedBytes, U256};
use harvey::chain::{Chain, RevertReason, TxStatus};

use crate::forge_suites_witness::artifacts;

/// `StatelessTest` deployed and set up on a chain with forge's cheatcodes.
fn stateless() -> (Chain, Address) {
    let mut chain = Chain::new(artifacts());
    chain.enable_cheatcodes();
    let test = chain.deploy("StatelessTest", ()).unwrap();
    chain.call(test, "setUp()", ()).unwrap();
    chain.commit();
    (chain, test)
}

/// Whether calling `signature` with `args` fails a forge-std assertion (and how, when it
/// ends otherwise), from setUp's state.
fn fails(
    chain: &mut Chain,
    test: Address,
    signature: &str,
    args: impl harvey::chain::SolArgs,
) -> bool {
    let outcome = chain.try_call(test, signature, args).unwrap();
    chain.reset();
    match &outcome.status {
        TxStatus::Success => false,
        TxStatus::Revert(RevertReason::Error(message))
            if message.starts_with("assertion failed") =>
        {
            true
        }
        other => panic!("{signature} ended with {other}"),
    }
}

#[test]
fn an_id_whose_offset_lands_on_a_2_pow_96_boundary_does_not_round_trip() {
    let (mut chain, test) = stateless();
    let signature = "testFuzz_positionsRoundTrip(uint256)";
    let boundary = (U256::from(1) << 96) - U256::from(0x5eed1234abcd_u64);
    assert!(fails(&mut chain, test, signature, (boundary,)));
    assert!(fails(
        &mut chain,
        test,
        signature,
        (boundary + (U256::from(5) << 96),)
    ));
    for id in [
        boundary - U256::from(1),
        boundary + U256::from(1),
        U256::ZERO,
    ] {
        assert!(!fails(&mut chain, test, signature, (id,)), "{id}");
    }
}

#[test]
fn a_tag_encoding_its_port_from_a_matching_peer_gets_lane_64() {
    let (mut chain, test) = stateless();
    let signature = "testFuzz_routesStayInRange(bytes4,uint16,address)";
    let port = 1001_u16;
    let tag = FixedBytes::<4>::from((u32::from(port) * 0x10001 + 0x2a).to_be_bytes());
    let peer = Address::with_last_byte(0xe9).into_array();
    let mut peer = peer;
    peer[18] = 0x03; // 0x03e9 = 1001
    let peer = Address::from(peer);
    assert!(fails(&mut chain, test, signature, (tag, port, peer)));
    assert!(!fails(&mut chain, test, signature, (tag, port + 1, peer)));
    assert!(!fails(
        &mut chain,
        test,
        signature,
        (tag, port, Address::ZERO)
    ));
}

#[test]
fn one_product_of_principal_and_rate_forgets_the_interest() {
    let (mut chain, test) = stateless();
    let signature = "testFuzz_interestAccrues(uint256,uint256,uint8)";
    // 254,803,968 × 207 = 52,744,421,376 at a rate of 1 bp (`bound` keeps both in range).
    let principal = U256::from(52_744_421_376_u64);
    assert!(fails(
        &mut chain,
        test,
        signature,
        (principal, U256::from(1), 207_u8)
    ));
    assert!(!fails(
        &mut chain,
        test,
        signature,
        (principal, U256::from(2), 207_u8)
    ));
    assert!(!fails(
        &mut chain,
        test,
        signature,
        (principal + U256::from(1), U256::from(1), 207_u8)
    ));
}

#[test]
fn one_schedule_total_is_booked_a_wei_short() {
    let (mut chain, test) = stateless();
    let signature = "testFuzz_trancheTotal(uint8,uint64,uint64)";
    // 4 tranches of 246,913,580,250 sum to 987,654,321,000.
    assert!(fails(
        &mut chain,
        test,
        signature,
        (4_u8, 246_913_580_250_u64, 0_u64)
    ));
    assert!(!fails(
        &mut chain,
        test,
        signature,
        (4_u8, 246_913_580_251_u64, 0_u64)
    ));
    // Three tranches to the same total are booked right.
    assert!(!fails(
        &mut chain,
        test,
        signature,
        (3_u8, 329_218_106_999_u64, 1_u64)
    ));
}
