//! Witnesses for the planted bugs of the assertion-mode harnesses in
//! `tests/fixtures/forge-suites/test/configs/stateless/StatelessAssertions.sol`: each harness
//! function, called directly with the inputs that reach its bug, fails its `assert`
//! (Panic 0x01), and with inputs next to them holds, so a campaign can only report those
//! bugs.

use alloy_primitives::{Address, FixedBytes, U256};
use harvey::chain::{Chain, PanicCode, RevertReason, SolArgs, TxStatus};

use crate::forge_suites_witness::artifacts;

/// Whether calling `signature` of a fresh `harness` with `args` fails its `assert` (and how,
/// when it ends otherwise).
fn asserts(harness: &str, signature: &str, args: impl SolArgs) -> bool {
    let mut chain = Chain::new(artifacts());
    let address = chain.deploy(harness, ()).unwrap();
    chain.commit();
    let outcome = chain.try_call(address, signature, args).unwrap();
    match &outcome.status {
        TxStatus::Success => false,
        TxStatus::Revert(RevertReason::Panic(PanicCode::Assert)) => true,
        other => panic!("{harness}.{signature} ended with {other}"),
    }
}

#[test]
fn the_positions_harness_asserts_on_an_id_landing_on_2_pow_96() {
    let signature = "test_positionsRoundTrip(uint256)";
    let boundary = (U256::from(1) << 96) - U256::from(0x5eed1234abcd_u64);
    assert!(asserts("PositionsAssertions", signature, (boundary,)));
    for id in [
        boundary - U256::from(1),
        boundary + U256::from(1),
        U256::ZERO,
    ] {
        assert!(!asserts("PositionsAssertions", signature, (id,)), "{id}");
    }
}

#[test]
fn the_router_harness_asserts_on_lane_64() {
    let signature = "test_routesStayInRange(bytes4,uint16,address)";
    let port = 1001_u16;
    let tag = FixedBytes::<4>::from((u32::from(port) * 0x10001 + 0x2a).to_be_bytes());
    let mut peer = [0u8; 20];
    peer[18..].copy_from_slice(&port.to_be_bytes());
    let peer = Address::from(peer);
    assert!(asserts("RouterAssertions", signature, (tag, port, peer)));
    assert!(!asserts(
        "RouterAssertions",
        signature,
        (tag, port + 1, peer)
    ));
    assert!(!asserts(
        "RouterAssertions",
        signature,
        (tag, port, Address::ZERO)
    ));
}

#[test]
fn the_interest_harness_asserts_when_the_interest_is_forgotten() {
    let signature = "test_interestAccrues(uint256,uint256,uint8)";
    // The harness maps its inputs into range: principal 1e6 + p, rate 1 + r.
    // 254,803,968 × 207 = 52,744,421,376 at a rate of 1 bp.
    let principal = U256::from(52_744_421_376_u64 - 1_000_000);
    let args = |p: U256, rate: u64| (p, U256::from(rate), 207_u8);
    assert!(asserts("InterestAssertions", signature, args(principal, 0)));
    assert!(!asserts(
        "InterestAssertions",
        signature,
        args(principal, 1)
    ));
    assert!(!asserts(
        "InterestAssertions",
        signature,
        args(principal + U256::from(1), 0)
    ));
}

#[test]
fn the_tranche_harness_asserts_on_the_short_total() {
    let signature = "test_trancheTotal(uint8,uint64,uint64)";
    // 4 tranches of 246,913,580,250 sum to 987,654,321,000.
    assert!(asserts(
        "TrancheAssertions",
        signature,
        (4_u8, 246_913_580_250_u64, 0_u64)
    ));
    assert!(!asserts(
        "TrancheAssertions",
        signature,
        (4_u8, 246_913_580_251_u64, 0_u64)
    ));
    assert!(!asserts(
        "TrancheAssertions",
        signature,
        (3_u8, 329_218_106_999_u64, 1_u64)
    ));
}
